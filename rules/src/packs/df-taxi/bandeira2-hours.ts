import type { HolidayCalendar, HolidayEntry } from '../../calendar/holiday-calendar.js';
import type { LocalDateTime } from '../../time/local-time.js';

/**
 * When the DF Bandeira II (tariff 2, +50 % per km) is justified by the clock — Art. 45 III
 * (Decreto 16.616/1995):
 *   a) from 20:00 to 06:00, Monday to Friday;
 *   b) from 12:00 on Saturday;
 *   c) the 24 hours of Sundays and holidays.
 * Art. 45 II keeps Bandeira I until 22:00, contradicting III a); RULES.md settles it the way the
 * later, specific clause reads: B2 from 20:00. So, on a day that is not a holiday, tariff 2 is
 * not time-justified within [06:00, 20:00) Monday–Friday and [06:00, 12:00) on Saturday; every
 * other minute of the week is (Saturday before 06:00 closes Friday night, Monday before 06:00
 * is inside "20:00 to 06:00, Monday to Friday").
 */

export interface DfTimeJustification {
  readonly allowed: boolean;
  /** The clause that allows it, e.g. `Art. 45 III a`. */
  readonly clause: string | null;
  /** An uncounted *ponto facultativo* (bank/optional day) covering the instant: grounds for doubt. */
  readonly uncertainDay: HolidayEntry | null;
  readonly holiday: HolidayEntry | null;
}

const H06 = 6 * 60;
const H12 = 12 * 60;
const H20 = 20 * 60;

export function dfBandeira2Time(ms: number, local: LocalDateTime, calendar: HolidayCalendar): DfTimeJustification {
  const holiday = calendar.countedAt(ms);
  if (holiday) return { allowed: true, clause: 'Art. 45 III c', uncertainDay: null, holiday };
  const m = local.minuteOfDay;
  if (local.weekday === 7) return { allowed: true, clause: 'Art. 45 III c', uncertainDay: null, holiday: null };
  if (local.weekday === 6) {
    if (m >= H12) return { allowed: true, clause: 'Art. 45 III b', uncertainDay: null, holiday: null };
    if (m < H06) return { allowed: true, clause: 'Art. 45 III a', uncertainDay: null, holiday: null };
  } else if (m >= H20 || m < H06) {
    return { allowed: true, clause: 'Art. 45 III a', uncertainDay: null, holiday: null };
  }
  return { allowed: false, clause: null, uncertainDay: calendar.uncountedAt(ms), holiday: null };
}
