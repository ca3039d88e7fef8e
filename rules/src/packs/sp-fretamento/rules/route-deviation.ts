import { defineRule, type Finding } from '../../../engine/rule.js';
import { haversineM } from '../../../geo/distance.js';
import type { ContractRecord, DeclaredPlace } from '../../../registry/records.js';
import { confidenceOf } from '../../common/confidence.js';
import { fine } from '../../common/penalty-helpers.js';
import { type LastReport, shouldReport } from '../../common/report-throttle.js';
import { round } from '../../common/round.js';
import { extendRun, type Run, startRun } from '../../common/run.js';
import type { SpConfig } from '../config.js';
import type { SpContext } from '../context.js';
import { type BoardingEvidenceKind, classifyBoarding, type SlowRun } from '../dwell-detector.js';
import { scheduleActive } from '../schedule.js';

/**
 * FRET_ROUTE_DEVIATION — the contract must state "o destino, o horário de operação, e os locais
 * de embarque e desembarque" (Art. 10 §2 item 3, Art. 11 §2 item 3) and the itinerary is filed
 * with the regulator (Art. 20); departing from it breaks the Regulation (Art. 23 V, 10 ORTN).
 * Judged only while a contract listing the vehicle is in its schedule window (± margin) and the
 * bus carries passengers (RULES.md, revised). Two variants:
 * - `off-route`: farther than 500 m from the declared route for ≥ 2 min. An empty positioning
 *   run — door-gated passenger count 0 — to the first boarding place or from the last one is not
 *   a deviation: samples with a count of 0 are not judged. With no passenger count, only the
 *   stretch after the first door opening of the charter trip is judged, and it is suspected;
 * - `boarding-outside-declared-places`: a boarding (counted boardings, or the door opening with
 *   the count higher when the bus moves off: confirmed; door only or a count rise with no door
 *   reading: suspected, and only away from the alighting places too) away from every declared
 *   boarding place: no fix of the stop within a place's radius (one multipath fix does not move a
 *   boarding away from its declared place).
 */

interface OffExtra {
  readonly contract: ContractRecord;
  readonly maxDistanceM: number;
  readonly maxPassengers: number | null;
}

interface State {
  readonly off: Run<OffExtra> | null;
  readonly offReported: LastReport | null;
  readonly boarding: Finding | null;
  readonly boardingReported: LastReport | null;
  /** The charter trip in which a door was first seen open (for buses with no passenger count). */
  readonly doorOpenedTripId: string | null;
  /** The slow run in progress under a contract (a boarding decided when it ends, or at close). */
  readonly slow: { readonly run: SlowRun; readonly contract: ContractRecord; readonly proximity: Proximity } | null;
}

/**
 * Where a slow run was against the contract's declared places, over all its fixes: a boarding at
 * a declared place is not moved away from it by one multipath fix (GPS jumps of a few hundred
 * metres with a falsely small accuracy), so a run is at a place if any of its fixes was.
 */
interface Proximity {
  readonly nearBoardingPlace: boolean;
  readonly nearAlightingPlace: boolean;
  readonly nearestBoardingPlace: string | null;
  readonly nearestBoardingPlaceM: number | null;
}

function proximityAt(contract: ContractRecord, lat: number, lon: number, prev: Proximity | null): Proximity {
  const near = (places: readonly DeclaredPlace[]) =>
    places.some((p) => haversineM(lat, lon, p.lat, p.lon) <= p.radiusM);
  const nearest = nearestPlace(contract.boardingPlaces, lat, lon);
  const closer = nearest !== null && (prev?.nearestBoardingPlaceM ?? Number.POSITIVE_INFINITY) > nearest.distanceM;
  return {
    nearBoardingPlace: (prev?.nearBoardingPlace ?? false) || near(contract.boardingPlaces),
    nearAlightingPlace: (prev?.nearAlightingPlace ?? false) || near(contract.alightingPlaces),
    nearestBoardingPlace: closer ? nearest.place.name : (prev?.nearestBoardingPlace ?? null),
    nearestBoardingPlaceM: closer ? nearest.distanceM : (prev?.nearestBoardingPlaceM ?? null),
  };
}

const idle: State = {
  off: null,
  offReported: null,
  boarding: null,
  boardingReported: null,
  doorOpenedTripId: null,
  slow: null,
};

/**
 * Is the bus carrying passengers, as far as the sensors say? `confirmed` with a count above 0,
 * `suspected` with no count once a door has opened on this charter trip, null when empty (count
 * 0: a positioning run) or not known to have boarded anyone.
 */
function loaded(ctx: SpContext, doorOpenedThisTrip: boolean): 'confirmed' | 'suspected' | null {
  const count = ctx.occupancy.passengersAtLeast;
  if (count !== null) return count > 0 ? 'confirmed' : null;
  return doorOpenedThisTrip ? 'suspected' : null;
}

function activeContract(ctx: SpContext, config: SpConfig): { contract: ContractRecord; distanceM: number } | null {
  let best: { contract: ContractRecord; distanceM: number } | null = null;
  for (const contract of ctx.registry.contractsForVehicle(ctx.sample.vehicleId, ctx.ms)) {
    if (!scheduleActive(contract.schedule, ctx.local, config.route.scheduleMarginMinutes)) continue;
    const distanceM = ctx.registry.distanceToRouteM(contract, ctx.sample.lat, ctx.sample.lon);
    if (!best || distanceM < best.distanceM) best = { contract, distanceM };
  }
  return best;
}

const nearestPlace = (places: readonly DeclaredPlace[], lat: number, lon: number) =>
  places
    .map((p) => ({ place: p, distanceM: haversineM(lat, lon, p.lat, p.lon) }))
    .sort((a, b) => a.distanceM - b.distanceM)[0] ?? null;

function offFinding(run: Run<OffExtra>, phase: 'ongoing' | 'final', config: SpConfig): Finding {
  return {
    ruleId: 'FRET_ROUTE_DEVIATION',
    eventId: `off:${run.eventId}`,
    phase,
    startedAt: run.startMs,
    endedAt: run.lastMs,
    lat: run.startLat,
    lon: run.startLon,
    place: { id: run.extra.contract.id, kind: 'route', name: run.extra.contract.client ?? run.extra.contract.id },
    measured: {
      contractId: run.extra.contract.id,
      maxDistanceFromRouteM: Math.round(run.extra.maxDistanceM),
      thresholdM: config.route.maxDistanceM,
      offRouteSeconds: round(run.durationS),
      minSeconds: config.route.minSeconds,
      distanceDrivenOffRouteM: Math.round(run.distanceM),
      passengersMax: run.extra.maxPassengers,
      loadEvidence: run.extra.maxPassengers === null ? 'door-opened-no-count' : 'passenger-count',
    },
    confidence: confidenceOf(run.suspected),
    variant: 'off-route',
    driverId: run.driverId,
  };
}

function boardingFinding(
  run: SlowRun,
  contract: ContractRecord,
  proximity: Proximity,
  kind: BoardingEvidenceKind,
  phase: 'ongoing' | 'final',
): Finding {
  return {
    ruleId: 'FRET_ROUTE_DEVIATION',
    eventId: `boarding:${run.id}`,
    phase,
    startedAt: run.startMs,
    endedAt: run.lastMs,
    lat: run.lat,
    lon: run.lon,
    place: { id: contract.id, kind: 'route', name: contract.client ?? contract.id },
    measured: {
      contractId: contract.id,
      boardingEvidence: kind,
      boardings: run.evidence.boardings,
      passengersBefore: run.evidence.passengersBefore,
      passengersAfter: run.evidence.passengersAfter,
      doorOpened: run.evidence.doorOpened,
      boardingsNotDoorBacked: run.evidence.boardingsNotDoorBacked,
      countReadingsRejected: run.evidence.rejectedCounts,
      nearestDeclaredBoardingPlace: proximity.nearestBoardingPlace,
      distanceToNearestBoardingPlaceM:
        proximity.nearestBoardingPlaceM === null ? null : Math.round(proximity.nearestBoardingPlaceM),
      declaredBoardingPlaces: contract.boardingPlaces.length,
    },
    confidence: kind === 'occupancy' ? 'confirmed' : 'suspected',
    variant: 'boarding-outside-declared-places',
  };
}

/** Is the slow run a boarding away from the contract's declared places? (`final`: the run is over.) */
function undeclaredBoarding(run: SlowRun, proximity: Proximity, final: boolean): BoardingEvidenceKind | null {
  const kind = classifyBoarding(run.evidence, final);
  if (kind === null || kind === 'no-sensors') return null;
  if (proximity.nearBoardingPlace) return null;
  if (kind !== 'occupancy' && proximity.nearAlightingPlace) return null;
  return kind;
}

export const routeDeviationRule = defineRule<State, SpConfig, SpContext>({
  id: 'FRET_ROUTE_DEVIATION',
  pack: 'sp-fretamento',
  legalBasis: ['Art. 10 §2 item 3', 'Art. 11 §2 item 3', 'Art. 20', 'Art. 23 V'],
  description: {
    pt: 'Desvio do roteiro declarado, ou embarque fora dos locais de embarque do contrato.',
    en: 'Deviation from the declared itinerary, or boarding away from the contract’s boarding places.',
  },
  penalty: () => fine('ORTN', 10, 'Art. 23 V'),
  init: () => idle,
  step(state, ctx, config) {
    const findings: Finding[] = [];
    const active = activeContract(ctx, config);
    const tripId = ctx.charterTrip.trip.id;
    const doorOpenedTripId = ctx.sample.doorOpen === true ? tripId : state.doorOpenedTripId;
    const load = active ? loaded(ctx, doorOpenedTripId === tripId) : null;
    let off = state.off;
    let offReported = state.offReported;
    const offNow = active !== null && load !== null && active.distanceM > config.route.maxDistanceM;
    if (off && (ctx.gapBefore || !offNow || off.extra.contract.id !== active?.contract.id)) {
      if (off.raised) findings.push(offFinding(off, 'final', config));
      off = null;
      offReported = null;
    }
    if (offNow && active) {
      const count = ctx.occupancy.passengersAtLeast;
      const extra = {
        contract: active.contract,
        maxDistanceM: Math.max(off?.extra.maxDistanceM ?? 0, active.distanceM),
        maxPassengers:
          count === null ? (off?.extra.maxPassengers ?? null) : Math.max(off?.extra.maxPassengers ?? 0, count),
      };
      const suspected = load === 'suspected';
      off = off ? extendRun(off, ctx, suspected || ctx.lateDropped > 0, extra) : startRun(ctx, suspected, extra);
      if (off.durationS >= config.route.minSeconds) {
        const confidence = confidenceOf(off.suspected);
        if (shouldReport(offReported, off.lastMs, confidence, 'off-route', ctx.general.updateIntervalS)) {
          findings.push(offFinding(off, 'ongoing', config));
          offReported = { endedAt: off.lastMs, confidence, variant: 'off-route' };
        }
        off = { ...off, raised: true };
      }
    }

    let boarding = state.boarding;
    let boardingReported = state.boardingReported;
    const endedRun = ctx.dwell.slowRunEnded;
    if (endedRun) {
      const raisedHere = boarding !== null && boarding.eventId === `boarding:${endedRun.id}`;
      const under = state.slow?.run.id === endedRun.id ? state.slow : null;
      const kind = under ? undeclaredBoarding(endedRun, under.proximity, true) : null;
      if (under && kind) findings.push(boardingFinding(endedRun, under.contract, under.proximity, kind, 'final'));
      else if (raisedHere && boarding) findings.push({ ...boarding, phase: 'final', endedAt: endedRun.lastMs });
      if (raisedHere) {
        boarding = null;
        boardingReported = null;
      }
    }
    const slow = ctx.dwell.slowRun;
    // A run keeps the contract it started under (the schedule window may close while it lasts).
    const same = slow !== null && state.slow?.run.id === slow.id ? state.slow : null;
    const slowContract = slow ? (same ? same.contract : active?.contract) : undefined;
    const proximity =
      slow && slowContract ? proximityAt(slowContract, ctx.sample.lat, ctx.sample.lon, same?.proximity ?? null) : null;
    if (slow && slowContract && proximity) {
      const kind = undeclaredBoarding(slow, proximity, false);
      if (kind) {
        const next = boardingFinding(slow, slowContract, proximity, kind, 'ongoing');
        const last = boarding?.eventId === next.eventId ? boardingReported : null;
        if (shouldReport(last, next.endedAt, next.confidence, next.variant, ctx.general.updateIntervalS)) {
          findings.push(next);
          boardingReported = { endedAt: next.endedAt, confidence: next.confidence, variant: next.variant };
        }
        boarding = next;
      }
    }
    return {
      state: {
        off,
        offReported,
        boarding,
        boardingReported,
        doorOpenedTripId,
        slow: slow && slowContract && proximity ? { run: slow, contract: slowContract, proximity } : null,
      },
      findings,
    };
  },
  close(state, _info, config) {
    const findings: Finding[] = [];
    if (state.off?.raised) findings.push(offFinding(state.off, 'final', config));
    const under = state.slow;
    const kind = under ? undeclaredBoarding(under.run, under.proximity, true) : null;
    if (under && kind) findings.push(boardingFinding(under.run, under.contract, under.proximity, kind, 'final'));
    else if (state.boarding) findings.push({ ...state.boarding, phase: 'final' });
    return { state: idle, findings };
  },
});
