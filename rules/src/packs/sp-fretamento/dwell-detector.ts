import type { SampleFacts } from '../../engine/sample-facts.js';
import { haversineM } from '../../geo/distance.js';
import type { StopRecord } from '../../registry/records.js';

/**
 * Where a charter bus stops and whether people board there — the signal behind
 * FRET_BOARDING_AT_REGULAR_STOP, FRET_REGULAR_SERVICE_PATTERN and the boarding half of
 * FRET_ROUTE_DEVIATION. Two nested runs of slow samples (speed ≤ `dwellMaxSpeedKmh`, no gap):
 * a *slow run* anywhere, and a *stop dwell* while the bus stays within `stopRadiusM` of the same
 * regular-service stop.
 *
 * Boarding evidence (RULES.md FRET_BOARDING_AT_REGULAR_STOP), read from the door-gated passenger
 * count (`SampleFacts.occupancy`: a count that rises and falls back with the door closed never
 * leaves the count accepted before it):
 * - `occupancy` (confirmed): the sensor counted boardings (`boardings` > 0) with the door open
 *   (a phantom boarding with the doors shut is noise), or the door opened and the count when the
 *   bus moves off is higher than before it stopped. The count part is only known when the dwell is
 *   over (`final`);
 * - `count` (suspected): the count rose and held, on a vehicle with no door reading;
 * - `door` (suspected): a door opening and no occupancy sensor (it may be alighting);
 * - `no-sensors` (suspected): neither sensor.
 * An occupancy sensor that shows nobody boarding clears the dwell even if the door opened.
 */

export type BoardingEvidenceKind = 'occupancy' | 'count' | 'door' | 'no-sensors';

export interface BoardingEvidence {
  /** Accepted count before the bus stopped (the last one read while it moved). */
  readonly passengersBefore: number | null;
  /** Accepted count at the last sample of the run, or when the bus moved off. */
  readonly passengersAfter: number | null;
  readonly passengersMax: number | null;
  /** Boardings counted with the door open (or open within `general.occupancySettleS`). */
  readonly boardings: number;
  /** Boardings the sensor counted with the door shut or no door reading: not evidence of a boarding. */
  readonly boardingsNotDoorBacked: number;
  readonly doorOpened: boolean;
  readonly hasOccupancyData: boolean;
  readonly hasDoorData: boolean;
  /** Samples whose count was rejected as sensor noise (door closed) or not yet settled. */
  readonly rejectedCounts: number;
}

export interface SlowRun {
  readonly id: string;
  readonly startMs: number;
  readonly lastMs: number;
  readonly durationS: number;
  readonly lat: number;
  readonly lon: number;
  readonly evidence: BoardingEvidence;
}

export interface StopDwell extends SlowRun {
  readonly stop: StopRecord;
  /** Closest the bus came to the stop during the dwell (m). */
  readonly minDistanceM: number;
}

export interface DwellSignal {
  readonly slowRun: SlowRun | null;
  readonly slowRunEnded: SlowRun | null;
  readonly stopDwell: StopDwell | null;
  readonly stopDwellEnded: StopDwell | null;
}

export interface DwellState {
  readonly slowRun: SlowRun | null;
  readonly stopDwell: StopDwell | null;
  readonly lastPassengers: number | null;
}

export const initialDwellState: DwellState = { slowRun: null, stopDwell: null, lastPassengers: null };

/** A bus on the move with no run open (most samples): one shared signal. */
const noDwell: DwellSignal = Object.freeze({
  slowRun: null,
  slowRunEnded: null,
  stopDwell: null,
  stopDwellEnded: null,
});

export interface DwellSettings {
  readonly dwellMaxSpeedKmh: number;
  readonly stopRadiusM: number;
}

/**
 * What the evidence says about a boarding (null: the sensors show nobody boarded, or not yet).
 * `final`: the run is over, so the count when the bus moved off is known; while it lasts only
 * counted boardings and door/no-sensor evidence decide.
 */
export function classifyBoarding(e: BoardingEvidence, final: boolean): BoardingEvidenceKind | null {
  if (e.boardings > 0) return 'occupancy';
  if (e.hasOccupancyData) {
    const rose = e.passengersBefore !== null && e.passengersAfter !== null && e.passengersAfter > e.passengersBefore;
    if (!rose || !final) return null;
    if (e.doorOpened) return 'occupancy';
    // A rise with a door sensor that never showed the door open: nobody got on.
    return e.hasDoorData ? null : 'count';
  }
  if (e.hasDoorData) return e.doorOpened ? 'door' : null;
  return 'no-sensors';
}

function foldEvidence(e: BoardingEvidence | null, ctx: SampleFacts, lastPassengers: number | null): BoardingEvidence {
  const s = ctx.sample;
  const occupancy = ctx.occupancy;
  const count = occupancy.passengers;
  return {
    passengersBefore: e ? e.passengersBefore : (lastPassengers ?? count),
    passengersAfter: count ?? e?.passengersAfter ?? null,
    passengersMax: count === null ? (e?.passengersMax ?? null) : Math.max(e?.passengersMax ?? count, count),
    boardings: (e?.boardings ?? 0) + occupancy.boardings,
    boardingsNotDoorBacked: (e?.boardingsNotDoorBacked ?? 0) + occupancy.boardingsNotDoorBacked,
    doorOpened: (e?.doorOpened ?? false) || s.doorOpen === true,
    hasOccupancyData: (e?.hasOccupancyData ?? false) || s.passengers !== null || s.boardings !== null,
    hasDoorData: (e?.hasDoorData ?? false) || s.doorOpen !== null,
    rejectedCounts: (e?.rejectedCounts ?? 0) + (occupancy.rejected ? 1 : 0),
  };
}

function extend<T extends SlowRun>(run: T, ctx: SampleFacts, lastPassengers: number | null): T {
  return {
    ...run,
    lastMs: ctx.ms,
    durationS: run.durationS + ctx.dtS,
    evidence: foldEvidence(run.evidence, ctx, lastPassengers),
  };
}

/** The bus moved off (no gap): the count it moves off with is the run's count after. */
function movedOff<T extends SlowRun>(run: T, ctx: SampleFacts): T {
  const count = ctx.occupancy.passengers;
  if (ctx.gapBefore || count === null) return run;
  return { ...run, evidence: { ...run.evidence, passengersAfter: count } };
}

function start(ctx: SampleFacts, lastPassengers: number | null): SlowRun {
  return {
    id: String(ctx.ms),
    startMs: ctx.ms,
    lastMs: ctx.ms,
    durationS: 0,
    lat: ctx.sample.lat,
    lon: ctx.sample.lon,
    evidence: foldEvidence(null, ctx, lastPassengers),
  };
}

export function detectDwell(
  state: DwellState,
  ctx: SampleFacts,
  settings: DwellSettings,
): { state: DwellState; signal: DwellSignal } {
  const s = ctx.sample;
  // After a gap the count before the stop is unknown (people may have boarded unseen).
  const carried = ctx.gapBefore ? null : state.lastPassengers;
  const slow = ctx.speedKmh !== null && ctx.speedKmh <= settings.dwellMaxSpeedKmh;
  if (!slow && state.slowRun === null && state.stopDwell === null) {
    // Moving, nothing open: only the count carried into the next stop may change. The state is
    // returned as it was when it did not (it lives until the bus's next sample).
    const lastPassengers = ctx.occupancy.passengers ?? carried;
    return {
      state: lastPassengers === state.lastPassengers ? state : { slowRun: null, stopDwell: null, lastPassengers },
      signal: noDwell,
    };
  }
  let slowRun = state.slowRun;
  let stopDwell = state.stopDwell;
  let slowRunEnded: SlowRun | null = null;
  let stopDwellEnded: StopDwell | null = null;

  if (slowRun && (!slow || ctx.gapBefore)) {
    slowRunEnded = movedOff(slowRun, ctx);
    slowRun = null;
  }
  if (stopDwell) {
    const distance = haversineM(s.lat, s.lon, stopDwell.stop.lat, stopDwell.stop.lon);
    if (!slow || ctx.gapBefore || distance > settings.stopRadiusM) {
      stopDwellEnded = slow ? stopDwell : movedOff(stopDwell, ctx);
      stopDwell = null;
    } else {
      stopDwell = {
        ...extend(stopDwell, ctx, carried),
        minDistanceM: Math.min(stopDwell.minDistanceM, distance),
      };
    }
  }
  if (slow) {
    slowRun = slowRun ? extend(slowRun, ctx, carried) : start(ctx, carried);
    if (!stopDwell) {
      const nearest = ctx.registry.stopsWithin(s.lat, s.lon, settings.stopRadiusM, ctx.ms)[0];
      if (nearest) stopDwell = { ...start(ctx, carried), stop: nearest.stop, minDistanceM: nearest.distanceM };
    }
  }
  // "Before the bus stopped": the count carried into a run is the last one accepted while moving.
  const count = ctx.occupancy.passengers;
  const lastPassengers = slow ? (carried ?? count) : (count ?? carried);
  return {
    state: { slowRun, stopDwell, lastPassengers },
    signal: { slowRun, slowRunEnded, stopDwell, stopDwellEnded },
  };
}
