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

function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = value instanceof Date ? value.toISOString() : String(value);
  // Quote per RFC 4180; a leading = + - @ is neutralised so a spreadsheet never runs it as a formula.
  const safe = /^[=+\-@]/.test(text) && !/^-?\d/.test(text) ? `'${text}` : text;
  return /[",\n\r]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export function violationsCsvHeader(): string {
  return `${columns.map(([name]) => name).join(',')}\r\n`;
}

export function violationCsvLine(v: ViolationRow): string {
  return `${columns.map(([, get]) => cell(get(v))).join(',')}\r\n`;
}
