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
 * Boarding evidence, strongest first: the occupancy sensor (boardings counted, or the passenger
 * count rising above what it was before the bus stopped); a door opening (which also happens for
 * alighting); nothing at all when the vehicle has neither sensor.
 */

export type BoardingEvidenceKind = 'occupancy' | 'door' | 'no-sensors';

export interface BoardingEvidence {
  readonly passengersBefore: number | null;
  readonly passengersMax: number | null;
  readonly boardings: number;
  readonly doorOpened: boolean;
  readonly hasOccupancyData: boolean;
  readonly hasDoorData: boolean;
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

export interface DwellSettings {
  readonly dwellMaxSpeedKmh: number;
  readonly stopRadiusM: number;
}

/** What the evidence says about a boarding (null: the sensors show nobody boarded). */
export function classifyBoarding(e: BoardingEvidence): BoardingEvidenceKind | null {
  if (e.hasOccupancyData) {
    const rose = e.passengersBefore !== null && e.passengersMax !== null && e.passengersMax > e.passengersBefore;
    return e.boardings > 0 || rose ? 'occupancy' : null;
  }
  if (e.hasDoorData) return e.doorOpened ? 'door' : null;
  return 'no-sensors';
}

function foldEvidence(e: BoardingEvidence | null, ctx: SampleFacts, lastPassengers: number | null): BoardingEvidence {
  const s = ctx.sample;
  const before = e ? e.passengersBefore : (lastPassengers ?? s.passengers);
  return {
    passengersBefore: before,
    passengersMax:
      s.passengers === null ? (e?.passengersMax ?? null) : Math.max(e?.passengersMax ?? s.passengers, s.passengers),
    boardings: (e?.boardings ?? 0) + (s.boardings ?? 0),
    doorOpened: (e?.doorOpened ?? false) || s.doorOpen === true,
    hasOccupancyData: (e?.hasOccupancyData ?? false) || s.passengers !== null || s.boardings !== null,
    hasDoorData: (e?.hasDoorData ?? false) || s.doorOpen !== null,
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
  const slow = ctx.speedKmh !== null && ctx.speedKmh <= settings.dwellMaxSpeedKmh;
  let slowRun = state.slowRun;
  let stopDwell = state.stopDwell;
  let slowRunEnded: SlowRun | null = null;
  let stopDwellEnded: StopDwell | null = null;

  if (slowRun && (!slow || ctx.gapBefore)) {
    slowRunEnded = slowRun;
    slowRun = null;
  }
  if (stopDwell) {
    const distance = haversineM(s.lat, s.lon, stopDwell.stop.lat, stopDwell.stop.lon);
    if (!slow || ctx.gapBefore || distance > settings.stopRadiusM) {
      stopDwellEnded = stopDwell;
      stopDwell = null;
    } else {
      stopDwell = {
        ...extend(stopDwell, ctx, state.lastPassengers),
        minDistanceM: Math.min(stopDwell.minDistanceM, distance),
      };
    }
  }
  if (slow) {
    slowRun = slowRun ? extend(slowRun, ctx, state.lastPassengers) : start(ctx, state.lastPassengers);
    if (!stopDwell) {
      const nearest = ctx.registry.stopsWithin(s.lat, s.lon, settings.stopRadiusM, ctx.ms)[0];
      if (nearest)
        stopDwell = { ...start(ctx, state.lastPassengers), stop: nearest.stop, minDistanceM: nearest.distanceM };
    }
  }
  // "Before the bus stopped": the count carried into a run is the last one seen while moving.
  const lastPassengers = slow ? (state.lastPassengers ?? s.passengers) : (s.passengers ?? state.lastPassengers);
  return {
    state: { slowRun, stopDwell, lastPassengers },
    signal: { slowRun, slowRunEnded, stopDwell, stopDwellEnded },
  };
}
