/**
 * The period of an analytics page: local dates (`YYYY-MM-DD`, both included) in the legal zone of
 * the pack the page reads, as the API takes them. The default is the API's: the 30 local days up
 * to today on that clock.
 */
export interface LocalPeriod {
  from: string;
  to: string;
}

export const defaultPeriodDays = 30;

/** Today's local date in a zone (`en-CA` writes dates as `YYYY-MM-DD`). */
export function localToday(timeZone: string, nowMs: number): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(
    nowMs,
  );
}

/** A local date moved by whole days (calendar arithmetic: no zone, no summer time). */
export function addLocalDays(date: string, days: number): string {
  const [y, mo, d] = date.split('-').map(Number);
  return new Date(Date.UTC(y ?? 1970, (mo ?? 1) - 1, (d ?? 1) + days)).toISOString().slice(0, 10);
}

/** Days from `from` to `to`, both included. */
export function periodDays(period: LocalPeriod): number {
  return Math.round((Date.parse(`${period.to}T00:00:00Z`) - Date.parse(`${period.from}T00:00:00Z`)) / 86_400_000) + 1;
}

export function defaultPeriod(timeZone: string, nowMs: number, days = defaultPeriodDays): LocalPeriod {
  const to = localToday(timeZone, nowMs);
  return { from: addLocalDays(to, -(days - 1)), to };
}
