/**
 * Local dates and instants for the scenarios. The three packs' zones (America/Sao_Paulo,
 * America/Belem) have been at UTC−03:00 all year since Brazil dropped daylight saving in 2019,
 * so a local wall time is that instant plus three hours; `localTime` (Intl) checks it.
 */
import { localTime } from '../local-time.js';

const OFFSET_MS = 3 * 3_600_000;
const DAY_MS = 86_400_000;

/** The instant (epoch ms) of local `date` ('YYYY-MM-DD') at `time` ('HH:MM' or 'HH:MM:SS'). */
export function localInstantMs(date: string, time: string): number {
  const [y, m, d] = date.split('-').map(Number);
  const [hh, mm, ss] = time.split(':').map(Number);
  return Date.UTC(y ?? 1970, (m ?? 1) - 1, d ?? 1, hh ?? 0, mm ?? 0, ss ?? 0) + OFFSET_MS;
}

/** The local date ('YYYY-MM-DD') of an instant. */
export function localDateOf(ms: number): string {
  return new Date(ms - OFFSET_MS).toISOString().slice(0, 10);
}

export function addDays(date: string, days: number): string {
  return localDateOf(localInstantMs(date, '12:00') + days * DAY_MS);
}

/** ISO weekday of a local date: 1 = Monday … 7 = Sunday. */
export function isoWeekday(date: string): number {
  const w = localTime(localInstantMs(date, '12:00'), 'America/Sao_Paulo').weekday;
  return w === 0 ? 7 : w;
}

/** Easter Sunday (Gregorian, anonymous algorithm). */
function easter(year: number): string {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const day = ((h + l - 7 * m + 114) % 31) + 1;
  return `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/**
 * Days a time-based scenario must avoid in any of the packs: national, DF, Pará and Belém
 * holidays, and the pontos facultativos (Carnaval, Ash Wednesday, Corpus Christi, 24/31 Dec).
 */
export function isSpecialDay(date: string): boolean {
  const md = date.slice(5);
  const fixed = [
    '01-01',
    '01-12',
    '04-21',
    '05-01',
    '08-15',
    '09-07',
    '10-12',
    '11-02',
    '11-15',
    '11-20',
    '11-30',
    '12-08',
    '12-24',
    '12-25',
    '12-31',
  ];
  if (fixed.includes(md)) return true;
  const e = easter(Number(date.slice(0, 4)));
  return [-48, -47, -46, -2, 60].some((offset) => addDays(e, offset) === date);
}

/**
 * The latest ordinary date with ISO weekday `weekday` (1 = Monday) at least `minDaysBack` days
 * before `nowMs`, outside December (Belém allows Bandeira 2 all December) and not next to a
 * holiday or ponto facultativo (a holiday extends Belém's Bandeira 2 to the next working day).
 */
export function pastOrdinaryDate(nowMs: number, weekday: number, minDaysBack = 7): string {
  let date = addDays(localDateOf(nowMs), -minDaysBack);
  for (let i = 0; i < 400; i++, date = addDays(date, -1)) {
    if (isoWeekday(date) !== weekday || date.slice(5, 7) === '12') continue;
    if ([-3, -2, -1, 0, 1].some((d) => isSpecialDay(addDays(date, d)))) continue;
    return date;
  }
  throw new Error(`no ordinary weekday ${weekday} in the last 400 days`);
}

const WEEKDAY_NAMES = ['', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];

/** 'Tue 2026-11-10 15:00' (local). */
export function describeLocal(ms: number): string {
  const date = localDateOf(ms);
  const t = new Date(ms - OFFSET_MS).toISOString().slice(11, 19);
  return `${WEEKDAY_NAMES[isoWeekday(date)]} ${date} ${t}`;
}
