/**
 * `<input type="datetime-local">` speaks wall-clock time without a zone; the replay's inputs mean
 * the pack's legal clock (dashboard/src/legal-time.ts), never the browser's zone. These convert a
 * wall-clock value in a zone to the instant and back.
 */

const partsFormatters = new Map<string, Intl.DateTimeFormat>();

function wallClockParts(ms: number, timeZone: string): Record<string, number> {
  let format = partsFormatters.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    partsFormatters.set(timeZone, format);
  }
  const parts: Record<string, number> = {};
  for (const part of format.formatToParts(ms)) if (part.type !== 'literal') parts[part.type] = Number(part.value);
  return parts;
}

/** The zone's offset from UTC at that instant, in ms (UTC−3: −10 800 000). */
function offsetMs(ms: number, timeZone: string): number {
  const p = wallClockParts(ms, timeZone);
  const asUtc = Date.UTC(p.year ?? 1970, (p.month ?? 1) - 1, p.day ?? 1, p.hour ?? 0, p.minute ?? 0, p.second ?? 0);
  return asUtc - Math.floor(ms / 1000) * 1000;
}

/** "2026-11-30T14:05" on the zone's clock → the instant (NaN when unreadable). */
export function instantOfWallClock(value: string, timeZone: string): number {
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(value);
  if (!match) return Number.NaN;
  const [, y, mo, d, h, mi, s] = match.map(Number) as number[];
  const asUtc = Date.UTC(y as number, (mo as number) - 1, d as number, h as number, mi as number, s || 0);
  // The offset at the guessed instant, then again at the corrected one (right across an offset change).
  const first = asUtc - offsetMs(asUtc, timeZone);
  return asUtc - offsetMs(first, timeZone);
}

/** The instant as "2026-11-30T14:05" on the zone's clock, for a datetime-local input's value. */
export function wallClockOf(ms: number, timeZone: string): string {
  const p = wallClockParts(ms, timeZone);
  const two = (n: number | undefined) => String(n ?? 0).padStart(2, '0');
  return `${p.year}-${two(p.month)}-${two(p.day)}T${two(p.hour)}:${two(p.minute)}`;
}
