import { defineRule, type Finding, keepState } from '../../../engine/rule.js';
import type { PenaltySpec } from '../../../violations/violation.js';
import type { SpConfig } from '../config.js';
import type { SpContext } from '../context.js';
import type { StopDwell } from '../dwell-detector.js';
import { boardingAtStop } from './boarding-at-regular-stop.js';

/**
 * FRET_REGULAR_SERVICE_PATTERN — a charter vehicle running as an unauthorized regular line:
 * one trip boards at ≥ 3 distinct regular-service stops, each boarding **confirmed**. Art. 18
 * (using a charter vehicle in regular transport needs prior authorization) and Art. 29 I (the
 * company that "desviar suas finalidades, agindo ... em detrimento dos demais serviços de
 * transporte" loses its registration). No fine of its own: each boarding is already fined as
 * FRET_BOARDING_AT_REGULAR_STOP (Art. 23 V); the pattern opens registration cancellation
 * proceedings (*cassação*). Suspected boardings (door only, a count rise with no door reading,
 * no sensors) never add up to a pattern: they are only counted in the evidence. Each boarding is
 * taken as decided when the bus moves off the stop (or at the vehicle's close).
 */

interface Boarding {
  readonly dwellId: string;
  readonly stopId: string;
  readonly stopName: string;
  readonly atMs: number;
  readonly lat: number;
  readonly lon: number;
}

interface State {
  readonly tripId: string | null;
  readonly tripStartMs: number;
  /** Confirmed boardings of the trip. */
  readonly boardings: readonly Boarding[];
  /** Suspected boardings seen on the trip, not counted. */
  readonly suspectedIgnored: number;
  readonly raised: boolean;
  /** The dwell at a stop in progress (decided at its end). */
  readonly openDwell: StopDwell | null;
}

/** Art. 29 I: cancellation proceedings, no fine of its own. */
export const patternPenalty: PenaltySpec = {
  unit: null,
  units: null,
  group: null,
  item: 'Art. 29 I',
  apprehension: false,
  opensCancellation: true,
  registryNonCompliance: false,
};

const distinctStops = (boardings: readonly Boarding[]) => new Set(boardings.map((b) => b.stopId)).size;

function finding(state: State, phase: 'ongoing' | 'final', config: SpConfig): Finding | null {
  const first = state.boardings[0];
  const last = state.boardings[state.boardings.length - 1];
  if (!first || !last || state.tripId === null) return null;
  const distinct = distinctStops(state.boardings);
  return {
    ruleId: 'FRET_REGULAR_SERVICE_PATTERN',
    eventId: state.tripId,
    phase,
    startedAt: first.atMs,
    endedAt: last.atMs,
    lat: first.lat,
    lon: first.lon,
    place: { id: first.stopId, kind: 'stop', name: first.stopName },
    measured: {
      distinctStops: distinct,
      confirmedDistinctStops: distinct,
      confirmedBoardings: state.boardings.length,
      suspectedBoardingsNotCounted: state.suspectedIgnored,
      minDistinctStops: config.regularService.minDistinctStops,
      stops: state.boardings.map((b) => ({ stopId: b.stopId, name: b.stopName, at: new Date(b.atMs).toISOString() })),
    },
    confidence: 'confirmed',
    variant: null,
    trip: { id: state.tripId, startedAt: state.tripStartMs, endedAt: last.atMs },
  };
}

const empty: State = {
  tripId: null,
  tripStartMs: 0,
  boardings: [],
  suspectedIgnored: 0,
  raised: false,
  openDwell: null,
};

/** Add a dwell that is over to the trip if it was a boarding; the ongoing finding once a pattern holds. */
function addDwell(s: State, dwell: StopDwell, config: SpConfig, findings: Finding[]): State {
  const verdict = boardingAtStop(dwell, config, true);
  if (!verdict || s.boardings.some((b) => b.dwellId === dwell.id)) return s;
  if (verdict.suspected) return { ...s, suspectedIgnored: s.suspectedIgnored + 1 };
  const next: State = {
    ...s,
    boardings: [
      ...s.boardings,
      {
        dwellId: dwell.id,
        stopId: dwell.stop.id,
        stopName: dwell.stop.name,
        atMs: dwell.startMs,
        lat: dwell.lat,
        lon: dwell.lon,
      },
    ],
  };
  if (distinctStops(next.boardings) < config.regularService.minDistinctStops) return next;
  const f = finding(next, 'ongoing', config);
  if (f) findings.push(f);
  return { ...next, raised: true };
}

export const regularServicePatternRule = defineRule<State, SpConfig, SpContext>({
  id: 'FRET_REGULAR_SERVICE_PATTERN',
  pack: 'sp-fretamento',
  legalBasis: ['Art. 18', 'Art. 29 I'],
  description: {
    pt: 'Veículo de fretamento operando como linha regular: embarques em várias paradas do serviço regular na mesma viagem.',
    en: 'Charter vehicle running as a regular line: boardings at several regular-service stops on one trip.',
  },
  penalty: () => patternPenalty,
  init: () => empty,
  step(state, ctx, config) {
    const trip = ctx.charterTrip.trip;
    const ended = ctx.dwell.stopDwellEnded;
    const open = ctx.dwell.stopDwell;
    if (state.tripId === trip.id && ended === null && open === state.openDwell) return keepState;
    const findings: Finding[] = [];
    let s = state;
    // A dwell that ends belongs to the trip it was part of, even if that trip ends at this sample.
    if (ended && s.tripId !== null) s = addDwell(s, ended, config, findings);
    if (s.tripId !== trip.id) {
      if (s.raised) {
        const f = finding(s, 'final', config);
        if (f) findings.push(f);
      }
      s = { ...empty, tripId: trip.id, tripStartMs: trip.startMs };
    }
    return { state: { ...s, openDwell: open }, findings };
  },
  close(state, _info, config) {
    const findings: Finding[] = [];
    const s = state.openDwell && state.tripId !== null ? addDwell(state, state.openDwell, config, findings) : state;
    const f = s.raised ? finding(s, 'final', config) : null;
    return { state: empty, findings: f ? [...findings, f] : findings };
  },
});
