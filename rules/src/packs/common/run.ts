import type { SampleFacts, Writable } from '../../engine/sample-facts.js';

/**
 * A run of consecutive samples over which a condition holds: the building block of every
 * "sustained for ≥ N s" rule. Durations are measured from the first to the last sample that
 * held — never extrapolated past the last sample seen — so a run is never longer than the
 * telemetry proves. A gap (`gapBefore`) ends a run: time without samples is not counted.
 */
export interface Run<E> {
  readonly eventId: string;
  readonly startMs: number;
  readonly lastMs: number;
  readonly startLat: number;
  readonly startLon: number;
  readonly lastLat: number;
  readonly lastLon: number;
  /** Seconds from the first to the last sample of the run. */
  readonly durationS: number;
  /** Of which the vehicle was moving (interval judged at its start). */
  readonly movingS: number;
  readonly distanceM: number;
  readonly samples: number;
  /** Some sample of the run rested on an inferred input. */
  readonly suspected: boolean;
  /** The rule has already reported the run (so it must also report its end). */
  readonly raised: boolean;
  readonly driverId: string | null;
  readonly extra: E;
}

export function startRun<E>(ctx: SampleFacts, suspected: boolean, extra: E): Run<E> {
  return {
    eventId: String(ctx.ms),
    startMs: ctx.ms,
    lastMs: ctx.ms,
    startLat: ctx.sample.lat,
    startLon: ctx.sample.lon,
    lastLat: ctx.sample.lat,
    lastLon: ctx.sample.lon,
    durationS: 0,
    movingS: 0,
    distanceM: 0,
    samples: 1,
    suspected,
    raised: false,
    driverId: ctx.sample.tachoDriverId,
    extra,
  };
}

export function extendRun<E>(run: Run<E>, ctx: SampleFacts, suspected: boolean, extra: E): Run<E> {
  // Spelled out rather than spread: a run is extended on most samples of a vehicle in a run, and
  // a literal of known shape is one allocation without the generic property copy.
  return {
    eventId: run.eventId,
    startMs: run.startMs,
    lastMs: ctx.ms,
    startLat: run.startLat,
    startLon: run.startLon,
    lastLat: ctx.sample.lat,
    lastLon: ctx.sample.lon,
    durationS: run.durationS + ctx.dtS,
    movingS: run.movingS + (ctx.movingBefore ? ctx.dtS : 0),
    distanceM: run.distanceM + ctx.segmentM,
    samples: run.samples + 1,
    suspected: run.suspected || suspected,
    raised: run.raised,
    driverId: ctx.sample.tachoDriverId ?? run.driverId,
    extra,
  };
}

/**
 * `extendRun` on the run itself, for a rule that owns it: no one else holds the object (the
 * caller's invariant, e.g. sustained-rule.ts `State.own`), so the next state is the same object.
 */
export function extendRunInPlace<E>(run: Run<E>, ctx: SampleFacts, suspected: boolean, extra: E): void {
  const r = run as Writable<Run<E>>;
  r.lastMs = ctx.ms;
  r.lastLat = ctx.sample.lat;
  r.lastLon = ctx.sample.lon;
  r.durationS = run.durationS + ctx.dtS;
  r.movingS = run.movingS + (ctx.movingBefore ? ctx.dtS : 0);
  r.distanceM = run.distanceM + ctx.segmentM;
  r.samples = run.samples + 1;
  r.suspected = run.suspected || suspected;
  r.driverId = ctx.sample.tachoDriverId ?? run.driverId;
  r.extra = extra;
}

/** The run, owned by its rule as for `extendRunInPlace`, marked as reported. */
export function markRaised<E>(run: Run<E>): Run<E> {
  (run as Writable<Run<E>>).raised = true;
  return run;
}
