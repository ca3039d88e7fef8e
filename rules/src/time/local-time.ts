/**
 * Wall-clock time in a pack's time zone, computed with `Intl` (the ICU data that ships with
 * Node), so historical offsets — São Paulo's daylight-saving time until 2019 — come out right.
 *
 * `Intl.DateTimeFormat#formatToParts` costs microseconds; the rule engine asks for local time on
 * every sample, so the UTC offset is cached per zone and per UTC hour. Every offset transition in
 * the zones we use falls on a whole hour, so one hour of UTC never straddles two offsets.
 *
 * The readings themselves are cached per zone and per UTC second (grouped by minute): a whole
 * fleet reports within the same seconds, and building a reading (its date string above all) on
 * every sample was a measurable share of the rule engine's time and garbage. A reading depends on
 * nothing but the zone and the whole second, so a cached one is the one that would be computed.
 * Readings are shared: treat them as the read-only values their type says they are.
 */

const MS_PER_MINUTE = 60_000;
const MS_PER_HOUR = 3_600_000;
const MS_PER_DAY = 86_400_000;

/** A calendar date in a pack's local time, `YYYY-MM-DD`. */
export type LocalDate = string;

/** ISO weekday: 1 = Monday … 7 = Sunday. */
export type IsoWeekday = 1 | 2 | 3 | 4 | 5 | 6 | 7;

export interface LocalDateTime {
  readonly year: number;
  /** 1–12 */
  readonly month: number;
  readonly day: number;
  readonly hour: number;
  readonly minute: number;
  readonly second: number;
  readonly weekday: IsoWeekday;
  /** `YYYY-MM-DD` */
  readonly date: LocalDate;
  /** Minutes since local midnight, 0–1439. */
  readonly minuteOfDay: number;
  /** Offset of local time from UTC in minutes (−180 for UTC−03:00). */
  readonly offsetMinutes: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();
const offsetCache = new Map<string, Map<number, number>>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** Throws on an unknown zone name, so a bad pack configuration fails at start, not on a sample. */
export function assertTimeZone(timeZone: string): void {
  formatterFor(timeZone);
}

function computeOffsetMinutes(timeZone: string, ms: number): number {
  const parts = formatterFor(timeZone).formatToParts(new Date(ms));
  const get = (type: Intl.DateTimeFormatPartTypes): number => {
    const part = parts.find((p) => p.type === type);
    if (!part) throw new Error(`Intl did not return ${type} for ${timeZone}`);
    return Number(part.value);
  };
  const asUtc = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
  const wholeSecondMs = Math.floor(ms / 1000) * 1000;
  return Math.round((asUtc - wholeSecondMs) / MS_PER_MINUTE);
}

/** UTC offset (minutes) of `timeZone` at instant `ms`. */
export function offsetMinutesAt(timeZone: string, ms: number): number {
  let zoneCache = offsetCache.get(timeZone);
  if (!zoneCache) {
    zoneCache = new Map();
    offsetCache.set(timeZone, zoneCache);
  }
  const hourKey = Math.floor(ms / MS_PER_HOUR);
  let offset = zoneCache.get(hourKey);
  if (offset === undefined) {
    offset = computeOffsetMinutes(timeZone, hourKey * MS_PER_HOUR);
    // Bounded: a long-running process sees a few thousand distinct hours per zone at most, but
    // a replay of years of history must not grow the map without limit.
    if (zoneCache.size > 100_000) zoneCache.clear();
    zoneCache.set(hourKey, offset);
  }
  return offset;
}

const pad2 = (n: number): string => (n < 10 ? `0${n}` : String(n));

export function formatLocalDate(year: number, month: number, day: number): LocalDate {
  return `${year}-${pad2(month)}-${pad2(day)}`;
}

/** One UTC minute of a zone: its readings (and ISO strings) per second, filled as asked for. */
interface MinuteReadings {
  readonly readings: (LocalDateTime | undefined)[];
  readonly iso: (string | undefined)[];
}

/** Bounded like the offsets: a replay of years must not grow it without limit (≈ 3 days a zone). */
const MAX_CACHED_MINUTES = 4096;
const readingCache = new Map<string, Map<number, MinuteReadings>>();

/** The cached minute of `ms` (null for an instant that is not a whole number of milliseconds). */
function minuteOf(timeZone: string, ms: number): MinuteReadings | null {
  if (!Number.isSafeInteger(ms)) return null;
  let zone = readingCache.get(timeZone);
  if (!zone) {
    zone = new Map();
    readingCache.set(timeZone, zone);
  }
  const key = Math.floor(ms / MS_PER_MINUTE);
  let minute = zone.get(key);
  if (!minute) {
    if (zone.size >= MAX_CACHED_MINUTES) zone.clear();
    minute = { readings: [], iso: [] };
    zone.set(key, minute);
  }
  return minute;
}

/** The second of its UTC minute `ms` falls in, 0–59 (the same as local: offsets are whole minutes). */
const secondOf = (ms: number): number => Math.floor((ms - Math.floor(ms / MS_PER_MINUTE) * MS_PER_MINUTE) / 1000);

/** The wall-clock reading of instant `at` in `timeZone`. */
export function localDateTime(at: Date | number, timeZone: string): LocalDateTime {
  const ms = typeof at === 'number' ? at : at.getTime();
  const minute = minuteOf(timeZone, ms);
  if (!minute) return computeLocalDateTime(ms, timeZone);
  const second = secondOf(ms);
  let reading = minute.readings[second];
  if (reading === undefined) {
    reading = computeLocalDateTime(ms, timeZone);
    minute.readings[second] = reading;
  }
  return reading;
}

function computeLocalDateTime(ms: number, timeZone: string): LocalDateTime {
  const offsetMinutes = offsetMinutesAt(timeZone, ms);
  const shifted = new Date(ms + offsetMinutes * MS_PER_MINUTE);
  const year = shifted.getUTCFullYear();
  const month = shifted.getUTCMonth() + 1;
  const day = shifted.getUTCDate();
  const hour = shifted.getUTCHours();
  const minute = shifted.getUTCMinutes();
  const jsDay = shifted.getUTCDay();
  return {
    year,
    month,
    day,
    hour,
    minute,
    second: shifted.getUTCSeconds(),
    weekday: (jsDay === 0 ? 7 : jsDay) as IsoWeekday,
    date: formatLocalDate(year, month, day),
    minuteOfDay: hour * 60 + minute,
    offsetMinutes,
  };
}

/** `YYYY-MM-DD` → its parts; throws on a malformed date. */
export function parseLocalDate(date: LocalDate): { year: number; month: number; day: number } {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (!m) throw new Error(`Not a YYYY-MM-DD date: ${date}`);
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  const check = new Date(Date.UTC(year, month - 1, day));
  if (check.getUTCFullYear() !== year || check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day) {
    throw new Error(`Not a calendar date: ${date}`);
  }
  return { year, month, day };
}

/** Calendar arithmetic on local dates (no time zone involved). */
export function addDays(date: LocalDate, days: number): LocalDate {
  const { year, month, day } = parseLocalDate(date);
  const d = new Date(Date.UTC(year, month - 1, day) + days * MS_PER_DAY);
  return formatLocalDate(d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate());
}

/** Whole days from `a` to `b` (positive when `b` is later). */
export function daysBetween(a: LocalDate, b: LocalDate): number {
  const pa = parseLocalDate(a);
  const pb = parseLocalDate(b);
  return Math.round((Date.UTC(pb.year, pb.month - 1, pb.day) - Date.UTC(pa.year, pa.month - 1, pa.day)) / MS_PER_DAY);
}

/** Adds calendar months, clamping to the month's last day (31 Jan + 1 month = 28/29 Feb). */
export function addMonths(date: LocalDate, months: number): LocalDate {
  const { year, month, day } = parseLocalDate(date);
  const index = year * 12 + (month - 1) + months;
  const y = Math.floor(index / 12);
  const m = (index % 12) + 1;
  const lastDay = new Date(Date.UTC(y, m, 0)).getUTCDate();
  return formatLocalDate(y, m, Math.min(day, lastDay));
}

/** Adds calendar years (29 Feb + 1 year = 28 Feb). */
export function addYears(date: LocalDate, years: number): LocalDate {
  return addMonths(date, years * 12);
}

export function weekdayOf(date: LocalDate): IsoWeekday {
  const { year, month, day } = parseLocalDate(date);
  const jsDay = new Date(Date.UTC(year, month - 1, day)).getUTCDay();
  return (jsDay === 0 ? 7 : jsDay) as IsoWeekday;
}

/**
 * The instant at which the wall clock in `timeZone` reads `date time`. At a spring-forward gap
 * (a wall time that never happened) the later offset is used; at a fall-back overlap, the
 * earlier of the two instants.
 */
export function zonedInstant(timeZone: string, date: LocalDate, time = '00:00:00'): Date {
  const { year, month, day } = parseLocalDate(date);
  const t = /^(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(time);
  if (!t) throw new Error(`Not an HH:MM[:SS] time: ${time}`);
  const wallAsUtc = Date.UTC(year, month - 1, day, Number(t[1]), Number(t[2]), Number(t[3] ?? 0));
  // Read the wall time with the offsets in force a day before and a day after: at most one
  // transition lies between, so the true instant is one of the two candidates.
  const before = offsetMinutesAt(timeZone, wallAsUtc - MS_PER_DAY);
  const after = offsetMinutesAt(timeZone, wallAsUtc + MS_PER_DAY);
  const wantedMinute = Number(t[1]) * 60 + Number(t[2]);
  const matches = [wallAsUtc - before * MS_PER_MINUTE, wallAsUtc - after * MS_PER_MINUTE].filter((c) => {
    const l = localDateTime(c, timeZone);
    return l.date === date && l.minuteOfDay === wantedMinute;
  });
  if (matches.length > 0) return new Date(Math.min(...matches));
  // A wall time skipped by a spring-forward gap: read it with the offset before the gap, which
  // lands just after the transition.
  return new Date(wallAsUtc - before * MS_PER_MINUTE);
}

/** ISO 8601 with the zone's offset, e.g. `2026-03-06T19:59:00-03:00`: what an officer reads. */
export function formatLocalIso(at: Date | number, timeZone: string): string {
  const ms = typeof at === 'number' ? at : at.getTime();
  const minute = minuteOf(timeZone, ms);
  if (!minute) return computeLocalIso(ms, timeZone);
  const second = secondOf(ms);
  let iso = minute.iso[second];
  if (iso === undefined) {
    iso = computeLocalIso(ms, timeZone);
    minute.iso[second] = iso;
  }
  return iso;
}

function computeLocalIso(ms: number, timeZone: string): string {
  const l = localDateTime(ms, timeZone);
  const sign = l.offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(l.offsetMinutes);
  return `${l.date}T${pad2(l.hour)}:${pad2(l.minute)}:${pad2(l.second)}${sign}${pad2(Math.floor(abs / 60))}:${pad2(abs % 60)}`;
}

/** The local date `at` falls on in `timeZone`. */
export function localDateOf(at: Date | number, timeZone: string): LocalDate {
  return localDateTime(at, timeZone).date;
}

/** `HH:MM` → minutes since midnight. */
export function parseClock(hhmm: string): number {
  const m = /^(\d{2}):(\d{2})$/.exec(hhmm);
  if (!m) throw new Error(`Not an HH:MM time: ${hhmm}`);
  const h = Number(m[1]);
  const min = Number(m[2]);
  if (h > 24 || min > 59 || (h === 24 && min > 0)) throw new Error(`Not a clock time: ${hhmm}`);
  return h * 60 + min;
}
