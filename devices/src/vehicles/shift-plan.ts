import { localTime } from '../local-time.js';

/** One driver's working hours, in local minutes since midnight (may run past midnight). */
export interface Shift {
  driverId: string;
  startMinute: number;
  lengthMinutes: number;
}

/** The shift under way at `epochMs` in `timeZone`, if any. */
export function activeShift(shifts: readonly Shift[], epochMs: number, timeZone: string): Shift | undefined {
  const minute = localTime(epochMs, timeZone).minuteOfDay;
  return shifts.find((s) => {
    const since = (minute - s.startMinute + 1440) % 1440;
    return since < s.lengthMinutes;
  });
}
