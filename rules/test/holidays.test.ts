import Holidays from 'date-holidays';
import { describe, expect, it } from 'vitest';
import { HolidayCalendar } from '../src/calendar/holiday-calendar.js';
import { belemConfigSchema } from '../src/packs/belem-taxi/config.js';
import { spConfigSchema } from '../src/packs/sp-fretamento/config.js';
import { at, BELEM, SAO_PAULO } from './helpers/trace.js';

/** What date-holidays itself returns: `date type name` for one subdivision and year. */
function library(state: string | null, year: number): string[] {
  const hd = state ? new Holidays('BR', state) : new Holidays('BR');
  return hd.getHolidays(year).map((h) => `${h.date.slice(0, 10)} ${h.type} ${h.name}`);
}

describe('date-holidays as installed (3.37.0): what it really returns for BR, DF, PA and SP', () => {
  it('national 2026 and 2027: fixed civil holidays public; Carnaval and Corpus Christi typed bank/optional', () => {
    for (const year of [2026, 2027]) {
      const br = library(null, year);
      for (const md of ['01-01', '04-21', '05-01', '09-07', '10-12', '11-02', '11-15', '11-20', '12-25']) {
        expect(
          br.some((h) => h.startsWith(`${year}-${md} public`)),
          `${year}-${md}`,
        ).toBe(true);
      }
    }
    const br2026 = library(null, 2026);
    expect(br2026).toContain('2026-04-03 public Sexta-Feira Santa');
    expect(br2026).toContain('2026-02-16 bank Carnaval');
    expect(br2026).toContain('2026-02-17 bank Carnaval');
    expect(br2026).toContain('2026-06-04 bank Corpo de Deus');
    expect(br2026).toContain('2026-12-24 optional Noite de Natal');
    const br2027 = library(null, 2027);
    expect(br2027).toContain('2027-02-09 bank Carnaval');
    expect(br2027).toContain('2027-03-26 public Sexta-Feira Santa');
    expect(br2027).toContain('2027-05-27 bank Corpo de Deus');
  });

  it('DF adds Dia do Evangélico (30 November) and names 21 April "Fundação de Brasília"', () => {
    expect(library('DF', 2026)).toContain('2026-11-30 public Dia do Evangélico');
    expect(library('DF', 2027)).toContain('2027-11-30 public Dia do Evangélico');
    expect(library('DF', 2026)).toContain('2026-04-21 public Fundação de Brasília');
  });

  it('PA adds 15 August (Adesão do Pará) but has no Belém municipal holidays', () => {
    expect(library('PA', 2026)).toContain('2026-08-15 public Adesão do Grão-Pará à independência do Brasil');
    expect(library('PA', 2027)).toContain('2027-08-15 public Adesão do Grão-Pará à independência do Brasil');
    expect(library('PA', 2026).some((h) => h.startsWith('2026-01-12'))).toBe(false);
    expect(library('PA', 2026).some((h) => h.startsWith('2026-12-08'))).toBe(false);
  });

  it('SP adds 9 July but drops the national 20 November (a data quirk the sp pack corrects)', () => {
    expect(library('SP', 2026)).toContain('2026-07-09 public Revolução Constitucionalista');
    expect(library('SP', 2026).some((h) => h.startsWith('2026-11-20'))).toBe(false);
    expect(library('SP', 2027).some((h) => h.startsWith('2027-11-20'))).toBe(false);
  });
});

function calendar(
  tz: string,
  state: string,
  fixed: { month: number; day: number; name: string }[],
  overrides = [] as { pack: 'belem-taxi'; date: string; name: string; action: 'add' | 'remove' }[],
) {
  return new HolidayCalendar({ timeZone: tz, state, countedTypes: ['public'], fixedHolidays: fixed, overrides });
}

describe('pack holiday calendars', () => {
  const belemFixed = belemConfigSchema.parse({}).holidays.fixed;

  it('Belém: the municipal holidays 12 January and 8 December count, all day', () => {
    const cal = calendar(BELEM, 'PA', belemFixed);
    expect(cal.countedAt(at(BELEM, '2026-01-12', '00:00:00').getTime())?.name).toBe('Aniversário de Belém');
    expect(cal.countedAt(at(BELEM, '2026-01-12', '23:59:59').getTime())?.name).toBe('Aniversário de Belém');
    expect(cal.countedAt(at(BELEM, '2026-01-13', '00:00:00').getTime())).toBeNull();
    expect(cal.isHolidayDate('2027-12-08')).toBe(true);
    expect(cal.isHolidayDate('2026-08-15')).toBe(true);
    expect(cal.isHolidayDate('2026-08-14')).toBe(false);
  });

  it('Carnaval Tuesday is reported as an uncounted ponto facultativo, not a holiday, by default', () => {
    const cal = calendar(BELEM, 'PA', belemFixed);
    const tuesday = at(BELEM, '2026-02-17', '10:00:00').getTime();
    expect(cal.countedAt(tuesday)).toBeNull();
    expect(cal.uncountedAt(tuesday)?.kind).toBe('bank');
    const counting = new HolidayCalendar({
      timeZone: BELEM,
      state: 'PA',
      countedTypes: ['public', 'bank'],
      fixedHolidays: [],
      overrides: [],
    });
    expect(counting.countedAt(tuesday)?.name).toBe('Carnaval');
  });

  it('24 December counts only from 14:00 when optional days are counted', () => {
    const cal = new HolidayCalendar({
      timeZone: SAO_PAULO,
      state: 'DF',
      countedTypes: ['public', 'optional'],
      fixedHolidays: [],
      overrides: [],
    });
    expect(cal.countedAt(at(SAO_PAULO, '2026-12-24', '13:59:00').getTime())).toBeNull();
    expect(cal.countedAt(at(SAO_PAULO, '2026-12-24', '14:00:00').getTime())?.name).toBe('Noite de Natal');
  });

  it('registry overrides add a decreed holiday and remove one', () => {
    const cal = calendar(BELEM, 'PA', belemFixed, [
      { pack: 'belem-taxi', date: '2026-10-12', name: 'cancelled for the test', action: 'remove' },
      { pack: 'belem-taxi', date: '2026-10-13', name: 'Recírio (decree)', action: 'add' },
    ]);
    expect(cal.isHolidayDate('2026-10-12')).toBe(false);
    expect(cal.isHolidayDate('2026-10-13')).toBe(true);
    expect(cal.countedAt(at(BELEM, '2026-10-13', '09:00:00').getTime())?.source).toBe('registry');
  });

  it('SP pack data restores the national 20 November (Lei 14.759/2023) from 2024', () => {
    const sp = spConfigSchema.parse({}).holidays;
    const cal = new HolidayCalendar({
      timeZone: SAO_PAULO,
      state: sp.state,
      countedTypes: sp.countedTypes,
      fixedHolidays: sp.fixed,
      overrides: [],
    });
    expect(cal.isHolidayDate('2026-11-20')).toBe(true);
    expect(cal.isHolidayDate('2027-11-20')).toBe(true);
    expect(cal.isHolidayDate('2026-07-09')).toBe(true);
  });
});
