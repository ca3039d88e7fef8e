import type { Pack } from './api-types.js';
import { intlLocale } from './i18n.js';
import { legalTimeMessages as m } from './legal-time-messages.js';

/**
 * Every time the dashboard shows is in the legal zone of the pack it belongs to (the zone the
 * rules judged it by), with the zone's name, never the browser's zone: a regulator in Brasília
 * reading a Belém violation must see Belém's clock, and whether Bandeira II was allowed depends on
 * the local hour and weekday where the taxi ran. The server's rules configuration can change a
 * pack's zone: `setPackTimeZones` takes the zones `GET /v1/dashboard-config` reports.
 */
const packTimeZones: Record<Pack, string> = {
  'df-taxi': 'America/Sao_Paulo',
  'belem-taxi': 'America/Belem',
  'sp-fretamento': 'America/Sao_Paulo',
};

/** Where a time belongs to no pack (a booking desk, a report of many packs): Brazil's official clock. */
export const defaultTimeZone = 'America/Sao_Paulo';

export function setPackTimeZones(zones: Partial<Record<Pack, string>>): void {
  Object.assign(packTimeZones, zones);
  formatters.clear();
}

export function packTimeZone(pack: Pack): string {
  return packTimeZones[pack] ?? defaultTimeZone;
}

/**
 * - `date-time`: 30/11/2026 14:05:03
 * - `date`: 30/11/2026
 * - `time`: 14:05:03
 * - `minute`: 14:05
 * - `weekday-time`: seg., 14:05:03 (a feed row of today)
 * - `weekday-date-time`: seg., 30/11/2026 14:05:03 (the detail, as a notice states it)
 */
export type TimeStyle = 'date-time' | 'date' | 'time' | 'minute' | 'weekday-time' | 'weekday-date-time';

const clock = { hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' } as const;
const day = { year: 'numeric', month: '2-digit', day: '2-digit' } as const;
const styles: Record<TimeStyle, Intl.DateTimeFormatOptions> = {
  'date-time': { ...day, ...clock },
  date: day,
  time: clock,
  minute: { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' },
  'weekday-time': { weekday: 'short', ...clock },
  'weekday-date-time': { weekday: 'short', ...day, ...clock },
};

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string, style: TimeStyle): Intl.DateTimeFormat {
  const key = `${timeZone}|${style}`;
  let format = formatters.get(key);
  if (format === undefined) {
    format = new Intl.DateTimeFormat(intlLocale(), { timeZone, ...styles[style] });
    formatters.set(key, format);
  }
  return format;
}

type Instant = number | string | Date;

function toMs(at: Instant): number {
  return at instanceof Date ? at.getTime() : typeof at === 'string' ? Date.parse(at) : at;
}

/** An instant in a zone; an unreadable instant shows as a dash rather than "Invalid Date". */
export function timeInZone(at: Instant, timeZone: string, style: TimeStyle = 'date-time'): string {
  const ms = toMs(at);
  return Number.isFinite(ms) ? formatter(timeZone, style).format(ms) : '—';
}

/** An instant on the pack's legal clock, without the zone's name (for tables whose header names it). */
export function legalTime(at: Instant, pack: Pack, style: TimeStyle = 'date-time'): string {
  return timeInZone(at, packTimeZone(pack), style);
}

/** "UTC−3": the zone's offset at that instant (none of the served zones keeps summer time today, but a zone may). */
function utcOffset(timeZone: string, at: number): string {
  const part = new Intl.DateTimeFormat('en', { timeZone, timeZoneName: 'shortOffset' })
    .formatToParts(at)
    .find((p) => p.type === 'timeZoneName')?.value;
  const offset = (part ?? 'GMT').replace('GMT', '').replace('-', '−');
  return offset === '' ? 'UTC' : `UTC${offset}`;
}

/** A zone's name as people there say it, with its offset: "horário de Belém (UTC−3)". */
export function timeZoneLabel(timeZone: string, at: Instant = Date.now()): string {
  const ms = toMs(at);
  return m.zoneWithOffset(
    m.zoneNames[timeZone] ?? timeZone,
    utcOffset(timeZone, Number.isFinite(ms) ? ms : Date.now()),
  );
}

/** The pack's legal zone by name: "horário de Brasília (UTC−3)". */
export function zoneName(pack: Pack, at: Instant = Date.now()): string {
  return timeZoneLabel(packTimeZone(pack), at);
}

/** An instant on the pack's legal clock followed by the zone's name. */
export function legalTimeWithZone(at: Instant, pack: Pack, style: TimeStyle = 'date-time'): string {
  return m.timeWithZone(legalTime(at, pack, style), zoneName(pack, at));
}

/** Time of day, with the weekday and date when it is not today on that clock (a vehicle silent since yesterday). */
export function recentTime(at: Instant, pack: Pack, nowMs: number): string {
  const sameDay = legalTime(at, pack, 'date') === legalTime(nowMs, pack, 'date');
  return legalTime(at, pack, sameDay ? 'weekday-time' : 'weekday-date-time');
}

/** "há 12 s", "há 3 min": how long ago, for what ages on screen. */
export function agoLabel(epochMs: number, nowMs: number): string {
  // Device clocks run slightly ahead at times; "in the future" would only confuse.
  const seconds = Math.max(0, Math.round((nowMs - epochMs) / 1000));
  if (seconds < 120) return m.ago(seconds, 's');
  const minutes = Math.round(seconds / 60);
  if (minutes < 120) return m.ago(minutes, 'min');
  const hours = Math.round(minutes / 60);
  if (hours < 48) return m.ago(hours, 'h');
  return m.ago(Math.round(hours / 24), 'd');
}

/**
 * The plain number format of the current locale, kept: the fleet panel formats its eight counts
 * after every live push, and a new `Intl.NumberFormat` each time was the page's costliest function
 * of its own in a profile of the 20 000-vehicle desk (about 1.5 ms per push).
 */
let plainNumber: { locale: string; format: Intl.NumberFormat } | null = null;

export function formatNumber(value: number, options?: Intl.NumberFormatOptions): string {
  if (options !== undefined) return new Intl.NumberFormat(intlLocale(), options).format(value);
  const locale = intlLocale();
  if (plainNumber?.locale !== locale) plainNumber = { locale, format: new Intl.NumberFormat(locale) };
  return plainNumber.format.format(value);
}

export function formatBrl(amount: number): string {
  return new Intl.NumberFormat(intlLocale(), { style: 'currency', currency: 'BRL' }).format(amount);
}
