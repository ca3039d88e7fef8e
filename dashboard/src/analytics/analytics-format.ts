import { intlLocale } from '../i18n.js';
import { formatNumber, timeInZone } from '../legal-time.js';
import { analyticsMessages as m } from './analytics-messages.js';

/**
 * How the analytics pages write their figures: Intl in the interface's language, through
 * legal-time's helpers; shares 0..1 as percentages, seconds as hours or minutes, metres as km. A
 * missing figure (a share of nothing) is a dash, never 0 %.
 */
const dash = '—';

export function percent(share: number | null, fractionDigits = 1): string {
  return share === null ? dash : formatNumber(share, { style: 'percent', maximumFractionDigits: fractionDigits });
}

export function count(value: number): string {
  return formatNumber(value, { maximumFractionDigits: 0 });
}

/** A decimal figure (inhabitants per taxi): no more than one decimal. */
export function decimal(value: number | null, fractionDigits = 1): string {
  return value === null ? dash : formatNumber(value, { maximumFractionDigits: fractionDigits });
}

function hoursValue(seconds: number): number {
  return Math.round((seconds / 3600) * 10) / 10;
}

/** "12,5 h" */
export function hours(seconds: number): string {
  return m.hoursSuffix(formatNumber(hoursValue(seconds), { minimumFractionDigits: 1, maximumFractionDigits: 1 }));
}

/** The number of hours alone, for a column whose header says "horas". */
export function hoursNumber(seconds: number): string {
  return formatNumber(hoursValue(seconds), { minimumFractionDigits: 1, maximumFractionDigits: 1 });
}

export function kmNumber(metres: number): string {
  return formatNumber(metres / 1000, { minimumFractionDigits: 1, maximumFractionDigits: 1 });
}

export function km(metres: number): string {
  return m.record.km(kmNumber(metres));
}

export function minutes(seconds: number | null): string {
  return seconds === null ? dash : m.record.minutes(formatNumber(seconds / 60, { maximumFractionDigits: 1 }));
}

/**
 * A local month `YYYY-MM` as "nov. de 2026". A month is a calendar label, not an instant: it is
 * formatted at noon UTC on its 15th, which is inside that month in every zone.
 */
export function monthLabel(month: string): string {
  const [year, mon] = month.split('-').map(Number);
  if (!year || !mon) return month;
  return new Intl.DateTimeFormat(intlLocale(), { month: 'short', year: 'numeric', timeZone: 'UTC' }).format(
    Date.UTC(year, mon - 1, 15, 12),
  );
}

/** A local day or hour of an answer, from the instant it starts, on the answer's clock. */
export function periodLabel(start: string, by: 'day' | 'hour', timeZone: string): string {
  const date = timeInZone(start, timeZone, 'date');
  return by === 'day' ? date : `${date} ${timeInZone(start, timeZone, 'minute')}`;
}
