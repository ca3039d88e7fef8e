import type { ScheduleWindow } from '../../registry/records.js';
import { addDays, type LocalDateTime, parseClock, weekdayOf } from '../../time/local-time.js';

/**
 * Is a contract's declared schedule (*horário de operação*, Art. 10 §2 item 3) running at local
 * time `local`, widened by `marginMinutes` either side? A window whose end is before its start
 * crosses midnight and belongs to the day it starts on.
 */
export function scheduleActive(
  windows: readonly ScheduleWindow[],
  local: LocalDateTime,
  marginMinutes: number,
): boolean {
  for (const w of windows) {
    const start = parseClock(w.start);
    let end = parseClock(w.end);
    if (end <= start) end += 1440;
    // The window may have started yesterday (crossing midnight) or, with the margin, start tomorrow.
    for (const dayOffset of [-1, 0, 1]) {
      const date = addDays(local.date, dayOffset);
      const applies = w.dates.includes(date) || w.daysOfWeek.includes(weekdayOf(date));
      if (!applies) continue;
      const minute = local.minuteOfDay - dayOffset * 1440;
      if (minute >= start - marginMinutes && minute <= end + marginMinutes) return true;
    }
  }
  return false;
}
