/**
 * Wall-clock time in a pack's time zone, through Intl (the runtime's IANA database), so Bandeira II
 * hours and rush hours follow local time whatever the host's zone is.
 */

export type Weekday = 0 | 1 | 2 | 3 | 4 | 5 | 6; // 0 = Sunday, as Date#getDay

export interface LocalTime {
  year: number;
  /** 1–12 */
  month: number;
  day: number;
  weekday: Weekday;
  hour: number;
  minute: number;
  /** Minutes since local midnight. */
  minuteOfDay: number;
}

const WEEKDAYS: Record<string, Weekday> = { Sun: 0, Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6 };
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      weekday: 'short',
      hour: 'numeric',
      minute: 'numeric',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/**
 * Intl formatting is slow next to a simulation step, and every step asks for the local time, so
 * the last answer per time zone is kept for the rest of its minute (every zone's offset is a
 * whole number of minutes).
 */
const lastByZone = new Map<string, { minute: number; value: LocalTime }>();

export function localTime(epochMs: number, timeZone: string): LocalTime {
  const minute = Math.floor(epochMs / 60_000);
  const cached = lastByZone.get(timeZone);
  if (cached && cached.minute === minute) return cached.value;
  const value = formatLocalTime(epochMs, timeZone);
  lastByZone.set(timeZone, { minute, value });
  return value;
}

function formatLocalTime(epochMs: number, timeZone: string): LocalTime {
  const parts: Record<string, string> = {};
  for (const p of formatterFor(timeZone).formatToParts(new Date(epochMs))) parts[p.type] = p.value;
  const weekday = WEEKDAYS[parts.weekday ?? ''];
  if (weekday === undefined) throw new Error(`Unexpected weekday '${parts.weekday}' from Intl`);
  const hour = Number(parts.hour);
  const minute = Number(parts.minute);
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    weekday,
    hour,
    minute,
    minuteOfDay: hour * 60 + minute,
  };
}
