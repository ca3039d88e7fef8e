import Holidays from 'date-holidays';
import type { HolidayOverrideRecord } from '../registry/records.js';
import { addDays, type LocalDate, localDateOf, parseLocalDate, zonedInstant } from '../time/local-time.js';

/**
 * The holidays of one pack: national and state holidays from `date-holidays` (BR plus the
 * state: DF, PA, SP), the pack's own municipal holidays (the library has no Belém region), and
 * the registry's overrides (a decree adding or cancelling a day).
 *
 * `date-holidays` types some days as `bank` (Carnaval Monday and Tuesday, Corpus Christi) or
 * `optional` (Carnaval weekend, Ash Wednesday until 14:00, 24 and 31 December from 14:00): they
 * are *pontos facultativos* by custom, not holidays under Lei 9.093/1995. Which types count is a
 * pack setting (`countedHolidayTypes`); days of an uncounted type are still reported, so a rule
 * can lower its confidence instead of asserting.
 */

export type LibraryHolidayType = 'public' | 'bank' | 'optional' | 'observance' | 'school';
export type HolidayKind = LibraryHolidayType | 'municipal' | 'override';

export interface HolidayEntry {
  /** The local date the entry falls on (a multi-day library entry is split per date). */
  readonly date: LocalDate;
  readonly name: string;
  readonly kind: HolidayKind;
  readonly source: 'date-holidays' | 'pack' | 'registry';
  /** Instants the entry covers on that date, `[startMs, endMs)`. */
  readonly startMs: number;
  readonly endMs: number;
  /** Does it count as a holiday for the pack's rules? */
  readonly counted: boolean;
}

/** A fixed-date holiday the pack adds to the library's calendar (month 1–12). */
export interface FixedHoliday {
  readonly month: number;
  readonly day: number;
  readonly name: string;
  /** First year it applies (the law that created it). */
  readonly fromYear?: number;
}

export interface HolidayCalendarOptions {
  readonly timeZone: string;
  /** ISO 3166-2 subdivision code for `date-holidays`, e.g. `DF`, `PA`, `SP`. */
  readonly state: string;
  readonly countedTypes: readonly LibraryHolidayType[];
  readonly fixedHolidays: readonly FixedHoliday[];
  readonly overrides: readonly HolidayOverrideRecord[];
}

export class HolidayCalendar {
  private readonly library: Holidays;
  private readonly years = new Map<number, Map<LocalDate, HolidayEntry[]>>();
  private readonly counted: ReadonlySet<string>;
  private readonly wholeDays = new Map<LocalDate, boolean>();

  constructor(private readonly options: HolidayCalendarOptions) {
    this.library = new Holidays('BR', options.state, { timezone: options.timeZone });
    this.counted = new Set(options.countedTypes);
  }

  get timeZone(): string {
    return this.options.timeZone;
  }

  /** Every entry on a local date, counted or not. */
  entriesOn(date: LocalDate): readonly HolidayEntry[] {
    // The year is the first four characters of a YYYY-MM-DD date (validated where dates enter).
    return this.yearTable(Number(date.slice(0, 4))).get(date) ?? [];
  }

  /** The counted holiday covering instant `ms`, if any. */
  countedAt(ms: number): HolidayEntry | null {
    return this.find(ms, true);
  }

  /** An uncounted bank/optional day covering `ms` (a *ponto facultativo*): a reason for doubt. */
  uncountedAt(ms: number): HolidayEntry | null {
    const hit = this.find(ms, false);
    return hit && (hit.kind === 'bank' || hit.kind === 'optional') ? hit : null;
  }

  /** Is the whole local date a counted holiday? */
  isHolidayDate(date: LocalDate): boolean {
    let whole = this.wholeDays.get(date);
    if (whole === undefined) {
      const start = zonedInstant(this.options.timeZone, date).getTime();
      const end = zonedInstant(this.options.timeZone, addDays(date, 1)).getTime();
      whole = this.entriesOn(date).some((e) => e.counted && e.startMs <= start && e.endMs >= end);
      this.wholeDays.set(date, whole);
    }
    return whole;
  }

  private find(ms: number, counted: boolean): HolidayEntry | null {
    const date = localDateOf(ms, this.options.timeZone);
    for (const e of this.entriesOn(date)) {
      if (e.counted === counted && e.startMs <= ms && ms < e.endMs) return e;
    }
    return null;
  }

  private yearTable(year: number): Map<LocalDate, HolidayEntry[]> {
    let table = this.years.get(year);
    if (table) return table;
    table = new Map();
    const tz = this.options.timeZone;
    const push = (e: HolidayEntry): void => {
      const list = table?.get(e.date);
      if (list) list.push(e);
      else table?.set(e.date, [e]);
    };

    for (const h of this.library.getHolidays(year)) {
      const kind = h.type as LibraryHolidayType;
      // Split multi-day entries (the library's Carnaval Saturday runs to Monday 00:00) per date.
      let date = localDateOf(h.start, tz);
      const endMs = h.end.getTime();
      while (true) {
        const dayStart = zonedInstant(tz, date).getTime();
        if (dayStart >= endMs) break;
        const dayEnd = zonedInstant(tz, addDays(date, 1)).getTime();
        push({
          date,
          name: h.name,
          kind,
          source: 'date-holidays',
          startMs: Math.max(dayStart, h.start.getTime()),
          endMs: Math.min(dayEnd, endMs),
          counted: this.counted.has(kind),
        });
        date = addDays(date, 1);
      }
    }

    for (const f of this.options.fixedHolidays) {
      if (f.fromYear !== undefined && year < f.fromYear) continue;
      const date = `${year}-${String(f.month).padStart(2, '0')}-${String(f.day).padStart(2, '0')}`;
      push(fullDay(tz, date, f.name, 'municipal', 'pack'));
    }

    for (const o of this.options.overrides) {
      if (parseLocalDate(o.date).year !== year) continue;
      if (o.action === 'remove') table.set(o.date, []);
    }
    for (const o of this.options.overrides) {
      if (parseLocalDate(o.date).year !== year || o.action !== 'add') continue;
      push(fullDay(tz, o.date, o.name, 'override', 'registry'));
    }

    this.years.set(year, table);
    return table;
  }
}

function fullDay(
  timeZone: string,
  date: LocalDate,
  name: string,
  kind: HolidayKind,
  source: HolidayEntry['source'],
): HolidayEntry {
  return {
    date,
    name,
    kind,
    source,
    startMs: zonedInstant(timeZone, date).getTime(),
    endMs: zonedInstant(timeZone, addDays(date, 1)).getTime(),
    counted: true,
  };
}
