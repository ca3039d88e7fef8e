import { describe, expect, it } from 'vitest';
import { HolidayCalendar } from '../src/calendar/holiday-calendar.js';
import { belemBandeira2Time } from '../src/packs/belem-taxi/bandeira2-periods.js';
import { belemConfigSchema } from '../src/packs/belem-taxi/config.js';
import { dfBandeira2Time } from '../src/packs/df-taxi/bandeira2-hours.js';
import { dfConfigSchema } from '../src/packs/df-taxi/config.js';
import { localDateTime } from '../src/time/local-time.js';
import { at, BELEM, SAO_PAULO } from './helpers/trace.js';

const dfHolidays = dfConfigSchema.parse({}).holidays;
const dfCalendar = new HolidayCalendar({
  timeZone: SAO_PAULO,
  state: dfHolidays.state,
  countedTypes: dfHolidays.countedTypes,
  fixedHolidays: dfHolidays.fixed,
  overrides: [],
});
const belemConfig = belemConfigSchema.parse({});
const belemCalendar = new HolidayCalendar({
  timeZone: BELEM,
  state: belemConfig.holidays.state,
  countedTypes: belemConfig.holidays.countedTypes,
  fixedHolidays: belemConfig.holidays.fixed,
  overrides: [],
});

const df = (instant: Date) => dfBandeira2Time(instant.getTime(), localDateTime(instant, SAO_PAULO), dfCalendar);
const dfAt = (date: string, time: string) => df(at(SAO_PAULO, date, time));
const belem = (instant: Date, settings = belemConfig.bandeira2) =>
  belemBandeira2Time(instant.getTime(), localDateTime(instant, BELEM), belemCalendar, settings);
const belemAt = (date: string, time: string, settings = belemConfig.bandeira2) =>
  belem(at(BELEM, date, time), settings);

/** Minutes in [from, from + days) when tariff 2 is not allowed. */
function forbiddenMinutes(judge: (d: Date) => { allowed: boolean }, from: Date, days: number): number {
  let n = 0;
  for (let m = 0; m < days * 1440; m++) if (!judge(new Date(from.getTime() + m * 60_000)).allowed) n++;
  return n;
}

describe('DF Bandeira II hours — Art. 45 III (Decreto 16.616/1995)', () => {
  it('weekday boundaries: 05:59 allowed (III a), 06:00 not, 19:59 not, 20:00 allowed (III a, not Art. 45 II’s 22:00)', () => {
    expect(dfAt('2026-03-02', '05:59:00')).toMatchObject({ allowed: true, clause: 'Art. 45 III a' });
    expect(dfAt('2026-03-02', '06:00:00').allowed).toBe(false);
    expect(dfAt('2026-03-04', '19:59:00').allowed).toBe(false);
    expect(dfAt('2026-03-04', '20:00:00')).toMatchObject({ allowed: true, clause: 'Art. 45 III a' });
    expect(dfAt('2026-03-04', '21:59:00').allowed).toBe(true);
  });

  it('Friday: 19:59 not allowed, 20:00:30 allowed', () => {
    expect(dfAt('2026-03-06', '19:59:00').allowed).toBe(false);
    expect(dfAt('2026-03-06', '20:00:30').allowed).toBe(true);
  });

  it('Saturday: 05:59 allowed (Friday night), 06:00 and 11:59 not, 12:00 allowed (III b)', () => {
    expect(dfAt('2026-03-07', '05:59:00').allowed).toBe(true);
    expect(dfAt('2026-03-07', '06:00:00').allowed).toBe(false);
    expect(dfAt('2026-03-07', '11:59:00').allowed).toBe(false);
    expect(dfAt('2026-03-07', '12:00:00')).toMatchObject({ allowed: true, clause: 'Art. 45 III b' });
  });

  it('Sunday all day (III c), Monday 05:59 allowed and 06:00 not', () => {
    expect(dfAt('2026-03-08', '10:00:00')).toMatchObject({ allowed: true, clause: 'Art. 45 III c' });
    expect(dfAt('2026-03-09', '05:59:00').allowed).toBe(true);
    expect(dfAt('2026-03-09', '06:00:00').allowed).toBe(false);
  });

  it('national and DF holidays all day (III c): 7 Sep, 21 Apr (Fundação de Brasília), 30 Nov (Dia do Evangélico)', () => {
    for (const date of ['2026-09-07', '2026-04-21', '2026-11-30', '2027-11-30']) {
      const r = dfAt(date, '10:00:00');
      expect(r.allowed, date).toBe(true);
      expect(r.clause).toBe('Art. 45 III c');
      expect(r.holiday).not.toBeNull();
    }
    expect(dfAt('2026-11-27', '10:00:00').allowed).toBe(false);
  });

  it('Carnaval Tuesday is not a holiday by default, but is flagged as a ponto facultativo', () => {
    const r = dfAt('2026-02-17', '10:00:00');
    expect(r.allowed).toBe(false);
    expect(r.uncertainDay?.name).toBe('Carnaval');
  });

  it('a plain week has exactly 5 × 14 h + 6 h of minutes where tariff 2 is not time-justified', () => {
    expect(forbiddenMinutes(df, at(SAO_PAULO, '2026-03-02', '00:00:00'), 7)).toBe(5 * 14 * 60 + 6 * 60);
  });

  it('uses Brasília local time, not UTC: 22:59Z on a Friday is 19:59 local', () => {
    expect(df(new Date('2026-03-06T22:59:00Z')).allowed).toBe(false);
    expect(df(new Date('2026-03-06T23:00:00Z')).allowed).toBe(true);
    expect(df(new Date('2026-03-07T02:30:00Z')).clause).toBe('Art. 45 III a');
  });
});

describe('Belém Bandeira 2 periods — Art. 35 I', () => {
  it('working days: 05:59 allowed, 06:00 not, 19:59 not, 20:00 allowed (I a)', () => {
    expect(belemAt('2026-03-04', '05:59:00').allowed).toBe(true);
    expect(belemAt('2026-03-04', '06:00:00').allowed).toBe(false);
    expect(belemAt('2026-03-04', '19:59:00').allowed).toBe(false);
    expect(belemAt('2026-03-04', '20:00:00')).toMatchObject({ allowed: true, clause: 'Art. 35 I a' });
  });

  it('from 12:00 on Saturday to 06:00 on Monday (I b): Monday 05:59 after a weekend allowed, 06:00 not', () => {
    expect(belemAt('2026-03-07', '11:59:00').allowed).toBe(false);
    expect(belemAt('2026-03-07', '12:00:00')).toMatchObject({ allowed: true, clause: 'Art. 35 I b' });
    expect(belemAt('2026-03-08', '15:00:00').clause).toBe('Art. 35 I b');
    expect(belemAt('2026-03-09', '05:59:00')).toMatchObject({ allowed: true, clause: 'Art. 35 I b' });
    expect(belemAt('2026-03-09', '06:00:00').allowed).toBe(false);
  });

  it('holidays all day and until 06:00 of the next working day (I c): 12 January, Belém’s anniversary', () => {
    expect(belemAt('2026-01-12', '10:00:00')).toMatchObject({ allowed: true, clause: 'Art. 35 I c' });
    expect(belemAt('2026-01-13', '05:59:00')).toMatchObject({ allowed: true, clause: 'Art. 35 I c' });
    expect(belemAt('2026-01-13', '06:00:00').allowed).toBe(false);
  });

  it('after a Friday holiday (Good Friday 2026-04-03) clause c ends at 06:00 on Saturday, a working day', () => {
    expect(belemAt('2026-04-03', '15:00:00').allowed).toBe(true);
    expect(belemAt('2026-04-04', '05:59:00').clause).toBe('Art. 35 I c');
    expect(belemAt('2026-04-04', '06:00:00').allowed).toBe(false);
    // With Saturday not a working day, the holiday runs on to Monday 06:00.
    const saturdayOff = { ...belemConfig.bandeira2, saturdayIsWorkingDay: false };
    expect(belemAt('2026-04-04', '06:00:00', saturdayOff)).toMatchObject({ allowed: true, clause: 'Art. 35 I c' });
    expect(belemAt('2026-04-04', '11:59:00', saturdayOff).allowed).toBe(true);
    expect(belemAt('2026-03-07', '09:00:00', saturdayOff).allowed).toBe(false);
  });

  it('state (15 Aug) and municipal (8 Dec is inside December anyway) holidays', () => {
    expect(belemAt('2025-08-15', '10:00:00')).toMatchObject({ allowed: true, clause: 'Art. 35 I c' });
    expect(belemAt('2025-08-14', '10:00:00').allowed).toBe(false);
  });

  it('December: every minute of the month is allowed (I d); 30 November afternoon and January are not', () => {
    expect(forbiddenMinutes(belem, at(BELEM, '2026-12-01', '00:00:00'), 31)).toBe(0);
    expect(belemAt('2026-12-15', '15:00:00')).toMatchObject({ allowed: true, clause: 'Art. 35 I d' });
    expect(belemAt('2026-11-30', '15:00:00').allowed).toBe(false);
    expect(belemAt('2027-01-04', '10:00:00').allowed).toBe(false);
  });

  it('a plain week has exactly 5 × 14 h + 6 h forbidden minutes', () => {
    expect(forbiddenMinutes(belem, at(BELEM, '2026-03-02', '00:00:00'), 7)).toBe(5 * 14 * 60 + 6 * 60);
  });

  it('uses Belém local time near midnight: 02:00Z on 1 December is still 30 November (night clause, not December)', () => {
    expect(belem(new Date('2026-12-01T02:00:00Z')).clause).toBe('Art. 35 I a');
    expect(belem(new Date('2026-12-01T03:00:00Z')).clause).toBe('Art. 35 I d');
    expect(belem(new Date('2026-11-30T12:00:00Z')).allowed).toBe(false);
  });

  it('Carnaval Monday is not a holiday by default but is reported as uncertain', () => {
    const r = belemAt('2026-02-16', '10:00:00');
    expect(r.allowed).toBe(false);
    expect(r.uncertainDay?.kind).toBe('bank');
  });
});
