import { stringify } from 'csv-stringify/sync';
import type { ViolationRow } from './violation-store.js';

/** The columns of the CSV export: what an officer or an operator's lawyer works from in a spreadsheet. */
const columns: [string, (v: ViolationRow) => unknown][] = [
  ['id', (v) => v.id],
  ['ruleId', (v) => v.ruleId],
  ['pack', (v) => v.pack],
  ['legalBasis', (v) => (v.legalBasis as string[]).join('; ')],
  ['description', (v) => v.description],
  ['vehicleId', (v) => v.vehicleId],
  ['plate', (v) => v.plate],
  ['operatorId', (v) => v.operatorId],
  ['driverId', (v) => v.driverId],
  ['startedAt', (v) => v.startedAt],
  ['endedAt', (v) => v.endedAt],
  ['lat', (v) => v.lat],
  ['lon', (v) => v.lon],
  ['place', (v) => (v.place as { name?: string } | null)?.name],
  ['confidence', (v) => v.confidence],
  ['penaltyGroup', (v) => (v.penalty as { group?: string }).group],
  ['penaltyUnits', (v) => (v.penalty as { units?: number }).units],
  ['penaltyUnit', (v) => (v.penalty as { unit?: string }).unit],
  ['amountBrl', (v) => (v.penalty as { amountBrl?: number }).amountBrl],
  ['recidivismCount', (v) => (v.recidivism as { count?: number }).count],
  ['status', (v) => v.status],
  ['measured', (v) => JSON.stringify(v.measured)],
];

/**
 * CSV (formula) injection, OWASP: a spreadsheet runs a cell that starts with `=`, `+`, `-`, `@`,
 * a tab or a carriage return as a formula (`=HYPERLINK(...)`, `-2+3+cmd|' /C calc'!A0`). Text
 * reaches this export from devices (a tachograph's driverId, a trip id in `measured`) and from
 * registry records (plates, ids, place names), so every TEXT cell that starts with one of them
 * gets a leading single quote, which the spreadsheet shows as text and does not run. Decided by
 * the value's type, not by its column: a number (lat -15.79, an amount) is written as a number
 * and left alone, since a number is never run and must stay a number for the spreadsheet.
 */
const FORMULA_START = /^[=+\-@\t\r]/;
export function neutraliseFormula(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text;
}

/**
 * The writer: RFC 4180 through csv-stringify (the sibling of the csv-parse the imports use),
 * CRLF rows, dates as ISO instants, text neutralised. A cell with a lone CR or LF is quoted too
 * (csv-stringify quotes only the record delimiter itself), so it can never start a new row.
 */
export const csvWriteOptions = {
  record_delimiter: 'windows',
  quoted_match: /[\r\n]/,
  cast: {
    string: (s: string) => neutraliseFormula(s),
    date: (d: Date) => d.toISOString(),
    boolean: (b: boolean) => String(b),
    number: (n: number) => String(n),
  },
} as const;

export function violationsCsvHeader(): string {
  return stringify([columns.map(([name]) => name)], csvWriteOptions);
}

/** The rows of one page of the export. */
export function violationsCsvRows(rows: readonly ViolationRow[]): string {
  if (rows.length === 0) return '';
  return stringify(
    rows.map((v) => columns.map(([, get]) => get(v) ?? null)),
    csvWriteOptions,
  );
}
