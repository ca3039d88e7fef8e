import type { SampleFacts } from '../../engine/sample-facts.js';

/**
 * Meter trips of a taxi. A trip is a contiguous span of samples with the meter `hired` or
 * `stopped` (*hora parada*: still hired, charging time) under one meter trip id. It ends when the
 * meter returns to `free`/`off`, when the trip id changes, or when telemetry stops for longer
 * than `tripMaxGapS` — then the trip is `incomplete`: its end (and so its destination, length and
 * final fare) is unknown and no end-of-trip decision may rest on it.
 */

export interface TripView {
  readonly id: string;
  readonly meterTripId: string | null;
  readonly startMs: number;
  readonly startLat: number;
  readonly startLon: number;
  readonly lastMs: number;
  readonly lastLat: number;
  readonly lastLon: number;
  /** Metres driven inside the trip (sum of the intervals between its samples). */
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
}

export interface TripTrackerState {
  readonly trip: TripView | null;
}

export const initialTripState: TripTrackerState = { trip: null };

const inTrip = (ctx: SampleFacts): boolean => ctx.sample.meterState === 'hired' || ctx.sample.meterState === 'stopped';

export function trackTrip(
  state: TripTrackerState,
  ctx: SampleFacts,
  tripMaxGapS: number,
): { state: TripTrackerState; signal: TripSignal } {
  const s = ctx.sample;
  let trip = state.trip;
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
    } else {
      trip = {
        ...trip,
        lastMs: ctx.ms,
        lastLat: s.lat,
        lastLon: s.lon,
        distanceM: trip.distanceM + (ctx.gapBefore ? 0 : ctx.segmentM),
        gaps: trip.gaps + (ctx.gapBefore ? 1 : 0),
        maxIntervalS: Math.max(trip.maxIntervalS, (ctx.ms - trip.lastMs) / 1000),
        lateDropped: trip.lateDropped + ctx.lateDropped,
        samples: trip.samples + 1,
        maxFareCents:
          s.meterFareCents === null ? trip.maxFareCents : Math.max(trip.maxFareCents ?? 0, s.meterFareCents),
      };
    }
  }
  return { state: { trip }, signal: { current: trip, ended } };
}
