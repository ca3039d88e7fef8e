import { AppError } from '@vigia/core';
import { addDays, daysBetween, type LocalDate, localDateTime, offsetMinutesAt } from '@vigia/rules';

/**
 * The local period of an analytics query (api/src/analytics/README.md "Common to every route"):
 * local dates in the pack's legal zone, both included, checked before anything is read.
 */
export interface LocalPeriod {
  timeZone: string;
  from: LocalDate;
  to: LocalDate;
  /** Local midnight starting `from`. */
  fromInstant: Date;
  /** Local midnight after `to`. */
  toInstant: Date;
}

const MS_PER_MINUTE = 60_000;
const MS_PER_HOUR = 3_600_000;
/** When the caller names no period: the 30 local days up to today. */
const DEFAULT_DAYS = 30;

/** The instant local midnight starts `date` in `timeZone` (offsets change only on whole hours in our zones). */
export function localMidnight(date: LocalDate, timeZone: string): Date {
  const utcMidnight = Date.parse(`${date}T00:00:00Z`);
  let ms = utcMidnight - offsetMinutesAt(timeZone, utcMidnight) * MS_PER_MINUTE;
  // The offset at the guessed instant may differ (a transition that day): settle on it.
  ms = utcMidnight - offsetMinutesAt(timeZone, ms) * MS_PER_MINUTE;
  return new Date(ms);
}

export function resolvePeriod(
  q: { from?: string | undefined; to?: string | undefined },
  timeZone: string,
  maxDays: number,
  now = new Date(),
): LocalPeriod {
  const to = q.to ?? (q.from ? addDays(q.from, DEFAULT_DAYS - 1) : localDateTime(now, timeZone).date);
  const from = q.from ?? addDays(to, -(DEFAULT_DAYS - 1));
  const days = daysBetween(from, to) + 1;
  if (days < 1) throw new AppError('INVALID_RANGE', '`from` must not be after `to`', 400);
  if (days > maxDays) {
    throw new AppError('RANGE_TOO_LARGE', `This query covers at most ${maxDays} days`, 400, { maxDays });
  }
  return {
    timeZone,
    from,
    to,
    fromInstant: localMidnight(from, timeZone),
    toInstant: localMidnight(addDays(to, 1), timeZone),
  };
}

/** Every local day of the period, with the instant it starts. */
export function localDays(p: LocalPeriod): { label: LocalDate; start: Date }[] {
  const out: { label: LocalDate; start: Date }[] = [];
  for (let d = p.from; daysBetween(d, p.to) >= 0; d = addDays(d, 1))
    out.push({ label: d, start: localMidnight(d, p.timeZone) });
  return out;
}

/** Every local hour of the period (`YYYY-MM-DDTHH:00`), with the instant it starts. */
export function localHours(p: LocalPeriod): { label: string; start: Date }[] {
  const out: { label: string; start: Date }[] = [];
  for (let ms = p.fromInstant.getTime(); ms < p.toInstant.getTime(); ms += MS_PER_HOUR) {
    const t = localDateTime(ms, p.timeZone);
    out.push({ label: `${t.date}T${String(t.hour).padStart(2, '0')}:00`, start: new Date(ms) });
  }
  return out;
}

/** a / b, null when b is 0; at most 1 when `capped` (a share). */
export function ratio(a: number, b: number, capped = true): number | null {
  if (!(b > 0)) return null;
  return capped ? Math.min(1, a / b) : a / b;
}
