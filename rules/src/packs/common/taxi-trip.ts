import { z } from 'zod';
import type { SampleFacts, Writable } from '../../engine/sample-facts.js';
import { haversineM } from '../../geo/distance.js';

/**
 * Meter trips of a taxi. A trip is a contiguous span of samples with the meter `hired` or
 * `stopped` (*hora parada*: still hired, charging time) under one meter trip id. It ends when the
 * meter returns to `free`/`off`, when the trip id changes, or when telemetry stops for longer
 * than `tripMaxGapS` — then the trip is `incomplete`: its end (and so its destination, length and
 * final fare) is unknown and no end-of-trip decision may rest on it.
 *
 * **Trip distance is driven distance, not GPS jitter.** A taxi waiting on *hora parada* or in a
 * jam reports fixes that wander around one point by about their accuracy; summing those hops
 * would lengthen a trip that did not move (DF_DETOUR, BEL_DETOUR) and price metres nobody drove
 * (DF/BEL_OVERCHARGE). So the trip keeps an anchor — the last position it counted — and a new fix
 * adds distance only once it is farther from the anchor than `accuracyFactor` × the reported
 * accuracy (the larger of the anchor's and the fix's; `assumedAccuracyM` for a fix with none):
 * then the straight hop from the anchor is added and the fix becomes the anchor. Driving (every
 * hop longer than the threshold) is measured exactly as before; crawling adds its distance once it
 * has left the jitter radius; wandering in place adds nothing. Both the detour and the overcharge
 * rule read this one measure (`TripView.distanceM`, `TripSignal.stepM`).
 */

/** How trip distance is measured against GPS jitter (shared by both taxi packs, `tripDistance.*`). */
export const tripDistanceConfigSchema = z.object({
  accuracyFactor: z.number().min(0).default(2).meta({
    description:
      'A fix adds trip distance only when farther from the last counted position than this multiple of the reported GPS accuracy (the larger of the two fixes): fixes wandering around a taxi waiting (hora parada, traffic) add nothing to the trip (detour, overcharge).',
    interpretation: true,
  }),
  assumedAccuracyM: z.number().min(0).default(10).meta({
    description: 'GPS accuracy (m) assumed for a fix that reports none, for the trip-distance filter.',
    interpretation: true,
  }),
});
export type TripDistanceSettings = z.output<typeof tripDistanceConfigSchema>;
export const defaultTripDistance: TripDistanceSettings = tripDistanceConfigSchema.parse({});

export interface TripView {
  readonly id: string;
  readonly meterTripId: string | null;
  readonly startMs: number;
  readonly startLat: number;
  readonly startLon: number;
  readonly lastMs: number;
  readonly lastLat: number;
  readonly lastLon: number;
  /** Metres driven inside the trip: the hops between counted positions, GPS jitter filtered out. */
  readonly distanceM: number;
  /** Silences longer than `general.maxGapS` inside the trip: its distance is then a lower bound. */
  readonly gaps: number;
  /** Longest interval between two samples of the trip (s): how far the trace can be trusted. */
  readonly maxIntervalS: number;
  /** Late samples dropped during the trip: its trace is incomplete. */
  readonly lateDropped: number;
  readonly samples: number;
  readonly maxFareCents: number | null;
}

export interface EndedTrip extends TripView {
  readonly incomplete: boolean;
}

export interface TripSignal {
  /** The trip this sample belongs to (null when the meter is not hired). */
  readonly current: TripView | null;
  /** A trip that ended before (or at) this sample. */
  readonly ended: EndedTrip | null;
  /** Metres this sample added to the current trip (0 while the fixes only wander around the anchor). */
  readonly stepM: number;
}

interface Anchor {
  readonly lat: number;
  readonly lon: number;
  readonly accuracyM: number;
}

/**
 * The tracker's state, as a checkpoint holds it. While a vehicle's tracker runs, its trip and
 * anchor are that tracker's own objects, updated in place on every sample of the trip (see
 * `trackTripInto`): a hired taxi's trip was a new 14-field object (and anchor and pair) per
 * sample, each outliving a young-generation collection and copied or promoted by it — the
 * largest part of what the engine kept alive per sample. Whatever reads them does so during the
 * sample's step only, or copies them: the ended trip is a copy, rules copy the fields they keep,
 * `copyTripState` makes the checkpoint's snapshot and the restored state's own objects.
 */
export interface TripTrackerState {
  readonly trip: TripView | null;
  /** The last position the current trip counted distance to. */
  readonly anchor: Anchor | null;
}

export const initialTripState: TripTrackerState = { trip: null, anchor: null };

/**
 * A copy of the state owning nothing of the original (the trip and anchor are flat data): what a
 * checkpoint takes of a running tracker, and what a tracker restored from one starts from, so
 * that the objects `trackTripInto` updates in place are never shared.
 */
export const copyTripState = (state: TripTrackerState): TripTrackerState =>
  state.trip === null && state.anchor === null
    ? initialTripState
    : {
        trip: state.trip === null ? null : { ...state.trip },
        anchor: state.anchor === null ? null : { ...state.anchor },
      };

const anchorOf = (ctx: SampleFacts, settings: TripDistanceSettings): Anchor => ({
  lat: ctx.sample.lat,
  lon: ctx.sample.lon,
  accuracyM: ctx.sample.accuracyM ?? settings.assumedAccuracyM,
});

/**
 * Metres from the anchor to this fix if the vehicle has really moved off it (see the header),
 * else 0. The engine's own test (both speeds ≤ 1 km/h: `segmentM` 0) also holds it in place.
 */
export function displacementM(anchor: Anchor, ctx: SampleFacts, settings: TripDistanceSettings): number {
  if (ctx.segmentM === 0) return 0;
  const d = haversineM(anchor.lat, anchor.lon, ctx.sample.lat, ctx.sample.lon);
  const accuracy = Math.max(anchor.accuracyM, ctx.sample.accuracyM ?? settings.assumedAccuracyM);
  return d > settings.accuracyFactor * accuracy ? d : 0;
}

const inTrip = (ctx: SampleFacts): boolean => ctx.sample.meterState === 'hired' || ctx.sample.meterState === 'stopped';

/**
 * The trip tracker's step: the new state, and the sample's trip signal written into `out`. A taxi
 * pack fills one signal for every sample (it goes on the facts object, read during the rules' step
 * and never kept) rather than a new signal and a pair to return it in.
 *
 * A trip that carries on is updated in place, and so is its anchor when the fix moves it; the
 * state returned is then `state` itself. `state` must be the tracker's own (returned by this
 * function, or `copyTripState` of a checkpoint's): see `TripTrackerState`.
 */
export function trackTripInto(
  state: TripTrackerState,
  ctx: SampleFacts,
  tripMaxGapS: number,
  distance: TripDistanceSettings,
  out: Writable<TripSignal>,
): TripTrackerState {
  if (state.trip === null && !inTrip(ctx)) {
    out.current = null;
    out.ended = null;
    out.stepM = 0;
    return initialTripState;
  }
  const s = ctx.sample;
  let trip = state.trip;
  let anchor = state.anchor;
  let stepM = 0;
  let ended: EndedTrip | null = null;
  if (trip) {
    const silentS = (ctx.ms - trip.lastMs) / 1000;
    if (silentS > tripMaxGapS) {
      ended = { ...trip, incomplete: true };
      trip = null;
    } else if (
      !inTrip(ctx) ||
      (s.meterTripId !== null && trip.meterTripId !== null && s.meterTripId !== trip.meterTripId)
    ) {
      ended = { ...trip, incomplete: false };
      trip = null;
    }
  }
  if (inTrip(ctx)) {
    if (!trip) {
      trip = {
        id: s.meterTripId ?? `t${ctx.ms}`,
        meterTripId: s.meterTripId,
        startMs: ctx.ms,
        startLat: s.lat,
        startLon: s.lon,
        lastMs: ctx.ms,
        lastLat: s.lat,
        lastLon: s.lon,
        distanceM: 0,
        gaps: 0,
        maxIntervalS: 0,
        lateDropped: 0,
        samples: 1,
        maxFareCents: s.meterFareCents,
      };
      anchor = anchorOf(ctx, distance);
    } else {
      // Nothing is measured across a gap: the trace restarts from this fix.
      stepM = ctx.gapBefore || !anchor ? 0 : displacementM(anchor, ctx, distance);
      if (!anchor) anchor = anchorOf(ctx, distance);
      else if (ctx.gapBefore || stepM > 0) {
        // The tracker's own anchor (see `TripTrackerState`), moved to this fix in place.
        const moved = anchor as Writable<Anchor>;
        moved.lat = s.lat;
        moved.lon = s.lon;
        moved.accuracyM = s.accuracyM ?? distance.assumedAccuracyM;
      }
      // The tracker's own trip, extended in place: a hired taxi extends its trip on every sample.
      const t = trip as Writable<TripView>;
      const intervalS = (ctx.ms - t.lastMs) / 1000;
      t.lastMs = ctx.ms;
      t.lastLat = s.lat;
      t.lastLon = s.lon;
      t.distanceM = t.distanceM + stepM;
      t.gaps = t.gaps + (ctx.gapBefore ? 1 : 0);
      t.maxIntervalS = Math.max(t.maxIntervalS, intervalS);
      t.lateDropped = t.lateDropped + ctx.lateDropped;
      t.samples = t.samples + 1;
      t.maxFareCents = s.meterFareCents === null ? t.maxFareCents : Math.max(t.maxFareCents ?? 0, s.meterFareCents);
    }
  }
  if (!trip) anchor = null;
  out.current = trip;
  out.ended = ended;
  out.stepM = stepM;
  // The same objects (a trip carried on, updated above): the same state.
  if (trip === state.trip && anchor === state.anchor) return state;
  return trip === null && anchor === null ? initialTripState : { trip, anchor };
}
