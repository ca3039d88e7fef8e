import type { SampleFacts, Writable } from '../../engine/sample-facts.js';

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

/**
 * The tracker's step: the bus's trip after this sample (`trip` itself while it carries on), and
 * the sample's signal written into `out` — one per pack, on the facts object, read during the
 * rules' step and never kept (rules copy the trip's id and start).
 *
 * A trip that carries on is updated in place: it was a new object (its three instants boxed) per
 * sample of every bus, outliving a young-generation collection and copied or promoted by it.
 * `trip` must be the tracker's own (returned by this function, or a copy of a checkpoint's: the
 * pack copies it in and out, see `copyCharterTrip`). An ended trip is never updated again.
 */
export function trackCharterTripInto(
  trip: CharterTrip | null,
  ctx: SampleFacts,
  tripBreakStillS: number,
  out: Writable<CharterTripSignal>,
): CharterTrip {
  let ended: CharterTrip | null = null;
  let next: CharterTrip;
  if (trip !== null && (ctx.ms - trip.lastMovingMs) / 1000 >= tripBreakStillS) {
    ended = trip;
    next = { id: String(ctx.ms), startMs: ctx.ms, lastMs: ctx.ms, lastMovingMs: ctx.ms };
  } else if (trip !== null) {
    const t = trip as Writable<CharterTrip>;
    t.lastMs = ctx.ms;
    if (ctx.moving) t.lastMovingMs = ctx.ms;
    next = trip;
  } else next = { id: String(ctx.ms), startMs: ctx.ms, lastMs: ctx.ms, lastMovingMs: ctx.ms };
  out.trip = next;
  out.ended = ended;
  return next;
}

/** A copy owning nothing of `trip`: what a checkpoint takes, and what a restored tracker starts from. */
export const copyCharterTrip = (trip: CharterTrip | null): CharterTrip | null => (trip === null ? null : { ...trip });
