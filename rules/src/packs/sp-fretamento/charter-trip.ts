import type { SampleFacts } from '../../engine/sample-facts.js';

/**
 * A charter bus's trip, for "one trip boards at ≥ 3 stops" (FRET_REGULAR_SERVICE_PATTERN): a
 * period of operation that ends once the bus has stood still — or been silent — for
 * `tripBreakStillS`. Ignition is not used: buses switch off while waiting for passengers.
 */
export interface CharterTrip {
  readonly id: string;
  readonly startMs: number;
  readonly lastMs: number;
  readonly lastMovingMs: number;
}

export interface CharterTripSignal {
  readonly trip: CharterTrip;
  readonly ended: CharterTrip | null;
}

export function trackCharterTrip(
  trip: CharterTrip | null,
  ctx: SampleFacts,
  tripBreakStillS: number,
): { trip: CharterTrip; signal: CharterTripSignal } {
  let ended: CharterTrip | null = null;
  let current = trip;
  if (current && (ctx.ms - current.lastMovingMs) / 1000 >= tripBreakStillS) {
    ended = current;
    current = null;
  }
  const next: CharterTrip = current
    ? {
        id: current.id,
        startMs: current.startMs,
        lastMs: ctx.ms,
        lastMovingMs: ctx.moving ? ctx.ms : current.lastMovingMs,
      }
    : { id: String(ctx.ms), startMs: ctx.ms, lastMs: ctx.ms, lastMovingMs: ctx.ms };
  return { trip: next, signal: { trip: next, ended } };
}
