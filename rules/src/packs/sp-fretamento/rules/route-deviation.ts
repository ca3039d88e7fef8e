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
import { classifyBoarding, type SlowRun } from '../dwell-detector.js';
import { scheduleActive } from '../schedule.js';

/**
 * FRET_ROUTE_DEVIATION — the contract must state "o destino, o horário de operação, e os locais
 * de embarque e desembarque" (Art. 10 §2 item 3, Art. 11 §2 item 3) and the itinerary is filed
 * with the regulator (Art. 20); departing from it breaks the Regulation (Art. 23 V, 10 ORTN).
 * Judged only while a contract listing the vehicle is in its schedule window (± margin). Two
 * variants:
 * - `off-route`: farther than 500 m from the declared route for ≥ 2 min;
 * - `boarding-outside-declared-places`: a boarding (occupancy sensor: confirmed; door only:
 *   suspected, and only away from the alighting places too) away from every declared boarding place.
 */

interface OffExtra {
  readonly contract: ContractRecord;
  readonly maxDistanceM: number;
}

interface State {
  readonly off: Run<OffExtra> | null;
  readonly offReported: LastReport | null;
  readonly boarding: Finding | null;
  readonly boardingReported: LastReport | null;
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
    },
    confidence: confidenceOf(run.suspected),
    variant: 'off-route',
    driverId: run.driverId,
  };
}

function boardingFinding(
  run: SlowRun,
  contract: ContractRecord,
  kind: 'occupancy' | 'door',
  phase: 'ongoing' | 'final',
): Finding {
  const nearest = nearestPlace(contract.boardingPlaces, run.lat, run.lon);
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
      passengersMax: run.evidence.passengersMax,
      doorOpened: run.evidence.doorOpened,
      nearestDeclaredBoardingPlace: nearest ? nearest.place.name : null,
      distanceToNearestBoardingPlaceM: nearest ? Math.round(nearest.distanceM) : null,
      declaredBoardingPlaces: contract.boardingPlaces.length,
    },
    confidence: kind === 'occupancy' ? 'confirmed' : 'suspected',
    variant: 'boarding-outside-declared-places',
  };
}

/** Is the slow run a boarding away from the contract's declared places? */
function undeclaredBoarding(run: SlowRun, contract: ContractRecord): 'occupancy' | 'door' | null {
  const kind = classifyBoarding(run.evidence);
  if (kind !== 'occupancy' && kind !== 'door') return null;
  const near = (places: readonly DeclaredPlace[]) =>
    places.some((p) => haversineM(run.lat, run.lon, p.lat, p.lon) <= p.radiusM);
  if (near(contract.boardingPlaces)) return null;
  if (kind === 'door' && near(contract.alightingPlaces)) return null;
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
  init: () => ({ off: null, offReported: null, boarding: null, boardingReported: null }),
  step(state, ctx, config) {
    const findings: Finding[] = [];
    const active = activeContract(ctx, config);
    let off = state.off;
    let offReported = state.offReported;
    const offNow = active !== null && active.distanceM > config.route.maxDistanceM;
    if (off && (ctx.gapBefore || !offNow || off.extra.contract.id !== active?.contract.id)) {
      if (off.raised) findings.push(offFinding(off, 'final', config));
      off = null;
      offReported = null;
    }
    if (offNow && active) {
      const extra = {
        contract: active.contract,
        maxDistanceM: Math.max(off?.extra.maxDistanceM ?? 0, active.distanceM),
      };
      off = off ? extendRun(off, ctx, ctx.lateDropped > 0, extra) : startRun(ctx, false, extra);
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
    if (boarding && endedRun && boarding.eventId === `boarding:${endedRun.id}`) {
      findings.push({ ...boarding, phase: 'final', endedAt: endedRun.lastMs });
      boarding = null;
      boardingReported = null;
    }
    const slow = ctx.dwell.slowRun;
    if (slow && active) {
      const kind = undeclaredBoarding(slow, active.contract);
      if (kind) {
        const next = boardingFinding(slow, active.contract, kind, 'ongoing');
        const last = boarding?.eventId === next.eventId ? boardingReported : null;
        if (shouldReport(last, next.endedAt, next.confidence, next.variant, ctx.general.updateIntervalS)) {
          findings.push(next);
          boardingReported = { endedAt: next.endedAt, confidence: next.confidence, variant: next.variant };
        }
        boarding = next;
      }
    }
    return { state: { off, offReported, boarding, boardingReported }, findings };
  },
  close(state, _info, config) {
    const findings: Finding[] = [];
    if (state.off?.raised) findings.push(offFinding(state.off, 'final', config));
    if (state.boarding) findings.push({ ...state.boarding, phase: 'final' });
    return { state: { off: null, offReported: null, boarding: null, boardingReported: null }, findings };
  },
});
