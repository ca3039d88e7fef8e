import { describe, expect, it } from 'vitest';
import {
  addDays,
  addMonths,
  daysBetween,
  formatLocalIso,
  localDateTime,
  weekdayOf,
  zonedInstant,
} from '../src/time/local-time.js';

describe('local time in the packs’ zones', () => {
  it('reads UTC instants just before and after local midnight on the right local date (Belém, UTC−3)', () => {
    const before = localDateTime(new Date('2026-12-01T02:59:59Z'), 'America/Belem');
    expect(before.date).toBe('2026-11-30');
    expect(before.hour).toBe(23);
    expect(before.minute).toBe(59);
    expect(before.weekday).toBe(1); // Monday
    const after = localDateTime(new Date('2026-12-01T03:00:00Z'), 'America/Belem');
    expect(after.date).toBe('2026-12-01');
    expect(after.minuteOfDay).toBe(0);
    expect(after.weekday).toBe(2);
    expect(after.month).toBe(12);
  });

  it('applies São Paulo’s former daylight saving time (UTC−2 in January 2019) but not Belém’s', () => {
    const instant = new Date('2019-01-15T12:00:00Z');
    expect(localDateTime(instant, 'America/Sao_Paulo').hour).toBe(10);
    expect(localDateTime(instant, 'America/Belem').hour).toBe(9);
    expect(localDateTime(new Date('2026-01-15T12:00:00Z'), 'America/Sao_Paulo').hour).toBe(9);
  });

  it('turns a wall time into the instant and back, across the 2018 spring-forward and 2019 fall-back', () => {
    for (const [date, time] of [
      ['2026-03-06', '19:59:00'],
      ['2018-11-03', '23:30:00'],
      ['2018-11-04', '01:30:00'],
      ['2019-02-16', '22:30:00'],
      ['2019-02-17', '00:30:00'],
    ] as const) {
      const instant = zonedInstant('America/Sao_Paulo', date, time);
      expect(formatLocalIso(instant, 'America/Sao_Paulo').slice(0, 19)).toBe(`${date}T${time}`);
    }
    // 2018-11-04 00:30 never happened in São Paulo (clocks jumped 00:00 → 01:00): lands after the gap.
    const skipped = zonedInstant('America/Sao_Paulo', '2018-11-04', '00:30:00');
    expect(localDateTime(skipped, 'America/Sao_Paulo').hour).toBe(1);
    // 2019-02-16 23:30 happened twice: the earlier instant (still UTC−2) is chosen.
    expect(zonedInstant('America/Sao_Paulo', '2019-02-16', '23:30:00').toISOString()).toBe('2019-02-17T01:30:00.000Z');
  });

  it('formats local ISO times with the zone’s offset', () => {
    expect(formatLocalIso(new Date('2026-03-06T22:59:00Z'), 'America/Sao_Paulo')).toBe('2026-03-06T19:59:00-03:00');
  });

  it('does calendar arithmetic on local dates', () => {
    expect(addDays('2026-12-31', 1)).toBe('2027-01-01');
    expect(addMonths('2026-01-31', 1)).toBe('2026-02-28');
    expect(addMonths('2025-08-31', 18)).toBe('2027-02-28');
    expect(daysBetween('2025-06-10', '2026-06-09')).toBe(364);
    expect(weekdayOf('2026-11-30')).toBe(1);
    expect(weekdayOf('2026-03-08')).toBe(7);
  });
});
