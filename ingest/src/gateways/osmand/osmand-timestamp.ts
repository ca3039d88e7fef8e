import { z } from 'zod';

/**
 * The `timestamp` of an OsmAnd request. Clients send epoch seconds (Traccar Client for Android,
 * the OsmAnd app), epoch milliseconds, or ISO 8601 (the newer Traccar Client's JSON). A number
 * below 2^31 is seconds, anything larger milliseconds — the rule Traccar's own decoder applies, so
 * a client that works with Traccar works here.
 *
 * Traccar also takes a time without a zone ("2014-06-04 09:10:11") and reads it in the server's
 * zone. That is refused here: read in the wrong zone a Brazilian device's time moves by three
 * hours, and a tariff-by-time-of-day rule would then flag drivers who did nothing wrong.
 */

const SECONDS_LIMIT = 2_147_483_647;
const isoInstant = z.iso.datetime({ offset: true });

export type ParsedTimestamp = { ok: true; ms: number } | { ok: false; message: string };

export function parseOsmandTimestamp(value: string): ParsedTimestamp {
  const text = value.trim();
  if (/^\d{1,16}$/.test(text)) {
    const n = Number(text);
    return { ok: true, ms: n < SECONDS_LIMIT ? n * 1000 : n };
  }
  if (isoInstant.safeParse(text).success) {
    const ms = Date.parse(text);
    if (Number.isFinite(ms)) return { ok: true, ms };
  }
  if (/^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(text)) {
    return {
      ok: false,
      message: `timestamp ${JSON.stringify(text)} has no time zone (send epoch seconds or ISO 8601 with Z or an offset)`,
    };
  }
  return {
    ok: false,
    message: `timestamp ${JSON.stringify(text)} is neither epoch seconds, epoch milliseconds nor ISO 8601`,
  };
}
