import type { HolidayCalendar, HolidayEntry } from '../../calendar/holiday-calendar.js';
import { addDays, type LocalDate, type LocalDateTime, weekdayOf } from '../../time/local-time.js';

/**
 * When Belém's Bandeira 2 may be charged — Art. 35 I:
 *   a) from 20:00 to 06:00 on working days (*dias úteis*);
 *   b) from 12:00 on Saturday to 06:00 on Monday;
 *   c) on holidays, all day, until 06:00 of the next working day;
 *   d) at any time in December.
 * Everything else is outside the permitted periods (Art. 58 item 3.4).
 *
 * "Working day" is Monday to Friday, plus Saturday when `saturdayIsWorkingDay` (the default:
 * clause b singles out Saturday afternoon, so the law treats Saturday morning as ordinary
 * working time), and never a counted holiday. The setting matters only after a Friday holiday:
 * with Saturday a working day, clause c ends at 06:00 on Saturday.
 */

export interface BelemTimeJustification {
  readonly allowed: boolean;
  readonly clause: string | null;
  readonly uncertainDay: HolidayEntry | null;
  readonly holiday: HolidayEntry | null;
}

export interface BelemPeriodSettings {
  readonly saturdayIsWorkingDay: boolean;
  readonly decemberUnrestricted: boolean;
}

const H06 = 6 * 60;
const H12 = 12 * 60;
const H20 = 20 * 60;

function isWorkingDay(date: LocalDate, calendar: HolidayCalendar, settings: BelemPeriodSettings): boolean {
  const wd = weekdayOf(date);
  if (wd === 7 || (wd === 6 && !settings.saturdayIsWorkingDay)) return false;
  return !calendar.isHolidayDate(date);
}

/**
 * Clause c: is `date` (at minute `m`) inside a holiday's tail, i.e. after a holiday and before
 * 06:00 of the next working day?
 */
function inHolidayTail(
  date: LocalDate,
  m: number,
  calendar: HolidayCalendar,
  settings: BelemPeriodSettings,
): HolidayEntry | null {
  // On a working day only the hours before 06:00 can belong to the previous holiday.
  if (isWorkingDay(date, calendar, settings) && m >= H06) return null;
  let day = addDays(date, -1);
  // Walk back over non-working days (a holiday Friday, then the weekend) — a week at most.
  for (let i = 0; i < 7; i++) {
    const holiday = calendar.entriesOn(day).find((e) => e.counted);
    if (holiday && calendar.isHolidayDate(day)) return holiday;
    if (isWorkingDay(day, calendar, settings)) return null;
    day = addDays(day, -1);
  }
  return null;
}

export function belemBandeira2Time(
  ms: number,
  local: LocalDateTime,
  calendar: HolidayCalendar,
  settings: BelemPeriodSettings,
): BelemTimeJustification {
  const none = { uncertainDay: null, holiday: null };
  if (settings.decemberUnrestricted && local.month === 12) return { allowed: true, clause: 'Art. 35 I d', ...none };
  const holiday = calendar.countedAt(ms);
  if (holiday) return { allowed: true, clause: 'Art. 35 I c', uncertainDay: null, holiday };
  const m = local.minuteOfDay;
  const wd = local.weekday;
  if ((wd === 6 && m >= H12) || wd === 7 || (wd === 1 && m < H06)) {
    return { allowed: true, clause: 'Art. 35 I b', ...none };
  }
  // Clauses a and c never both apply (a needs a working day before, c a holiday): the cheaper goes first.
  if (m >= H20 && isWorkingDay(local.date, calendar, settings)) {
    return { allowed: true, clause: 'Art. 35 I a', ...none };
  }
  if (m < H06 && isWorkingDay(addDays(local.date, -1), calendar, settings)) {
    return { allowed: true, clause: 'Art. 35 I a', ...none };
  }
  const tail = inHolidayTail(local.date, m, calendar, settings);
  if (tail) return { allowed: true, clause: 'Art. 35 I c', uncertainDay: null, holiday: tail };
  return { allowed: false, clause: null, uncertainDay: calendar.uncountedAt(ms), holiday: null };
}
