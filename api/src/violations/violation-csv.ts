import { measuredLabel } from '@vigia/rules';
import { stringify } from 'csv-stringify/sync';
import { localStamp } from '../notices/notice-pdf.js';
import { packTimeZone } from '../notices/notice-time-zone.js';
import { violationCsvMessages as msg } from './violation-csv-messages.js';
import type { ReviewEntry, ViolationRow } from './violation-store.js';

/** What a row is written with beside the violation: its review trail. */
export interface CsvRowContext {
  reviews: readonly ReviewEntry[];
}

const local = (at: unknown, v: ViolationRow): string | null =>
  at instanceof Date || typeof at === 'string' ? localStamp(new Date(at), packTimeZone(String(v.pack))) : null;
const lastReview = (c: CsvRowContext): ReviewEntry | undefined => c.reviews.at(-1);
const reviewerOf = (r: ReviewEntry): string =>
  r.reviewerName ?? (r.reviewer === 'admin' ? msg.adminReviewer : r.reviewer);

/**
 * The columns of the CSV export: what an officer or an operator's lawyer works from in a
 * spreadsheet. Instants twice: as UTC instants (`startedAt`) and on the wall clock of the pack's
 * legal zone (`startedAtLocal`, zone in `timeZone`), the clock the regulation speaks of. The review
 * trail in full, one decision a line, and the last decision in columns of its own. After these,
 * one column per measured value (see measuredColumns).
 */
const columns: [string, (v: ViolationRow, c: CsvRowContext) => unknown][] = [
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
  ['timeZone', (v) => packTimeZone(String(v.pack))],
  ['startedAtLocal', (v) => local(v.startedAt, v)],
  ['endedAtLocal', (v) => local(v.endedAt, v)],
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
  ['lastDecision', (_v, c) => lastReview(c)?.decision],
  [
    'lastReviewer',
    (_v, c) => {
      const last = lastReview(c);
      return last ? reviewerOf(last) : null;
    },
  ],
  ['lastReviewedAtLocal', (v, c) => local(lastReview(c)?.at, v)],
  [
    'reviewTrail',
    (v, c) =>
      c.reviews
        .map((r) =>
          msg.trailLine(local(r.at, v) ?? '', msg.decisions[r.decision] ?? r.decision, reviewerOf(r), r.reason),
        )
        .join('\n'),
  ],
  ['measured', (v) => JSON.stringify(v.measured)],
];

/**
 * The measured values as columns: one per key any exported violation carries (in order of first
 * appearance), headed by its Brazilian Portuguese name from the rules' catalogue
 * (`measuredLabel`), with the key in brackets where two keys share a name. A nested value (a
 * stand's queue snapshot) is written as JSON in its cell; the whole object stays in `measured`.
 */
export function measuredColumns(rows: readonly ViolationRow[]): { key: string; header: string }[] {
  const keys = [...new Set(rows.flatMap((v) => Object.keys((v.measured as Record<string, unknown> | null) ?? {})))];
  const labels = keys.map((key) => measuredLabel(key));
  return keys.map((key, i) => {
    const label = labels[i] as string;
    return { key, header: labels.indexOf(label) === labels.lastIndexOf(label) ? label : `${label} [${key}]` };
  });
}

function measuredCell(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  return typeof value === 'object' ? JSON.stringify(value) : value;
}

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

export function violationsCsvHeader(measured: readonly { header: string }[] = []): string {
  return stringify([[...columns.map(([name]) => name), ...measured.map((m) => m.header)]], csvWriteOptions);
}

/** The rows of the export, with each violation's review trail (`trails`, by id) and the measured columns. */
export function violationsCsvRows(
  rows: readonly ViolationRow[],
  trails: ReadonlyMap<string, readonly ReviewEntry[]> = new Map(),
  measured: readonly { key: string }[] = [],
): string {
  if (rows.length === 0) return '';
  return stringify(
    rows.map((v) => {
      const context = { reviews: trails.get(v.id) ?? [] };
      const values = (v.measured as Record<string, unknown> | null) ?? {};
      return [
        ...columns.map(([, get]) => get(v, context) ?? null),
        ...measured.map((m) => measuredCell(values[m.key])),
      ];
    }),
    csvWriteOptions,
  );
}
