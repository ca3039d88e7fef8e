import { defineRule, type Finding, noFindings } from '../../../engine/rule.js';
import { fine } from '../../common/penalty-helpers.js';
import type { SpConfig } from '../config.js';
import type { SpContext } from '../context.js';
import { boardingAtStop } from './boarding-at-regular-stop.js';

/**
 * FRET_REGULAR_SERVICE_PATTERN — a charter vehicle running as an unauthorized regular line:
 * one trip boards at ≥ 3 distinct regular-service stops. Art. 18 (using a charter vehicle in
 * regular transport needs prior authorization) and Art. 29 I (the company that "desviar suas
 * finalidades, agindo ... em detrimento dos demais serviços de transporte" loses its
 * registration): 10 ORTN for each boarding, and cancellation proceedings are opened.
 * Confirmed when at least the minimum number of distinct stops have a confirmed boarding.
 */

interface Boarding {
  readonly dwellId: string;
  readonly stopId: string;
  readonly stopName: string;
  readonly atMs: number;
  readonly suspected: boolean;
  readonly lat: number;
  readonly lon: number;
}

interface State {
  readonly tripId: string | null;
  readonly tripStartMs: number;
  readonly boardings: readonly Boarding[];
  readonly raised: boolean;
}

function finding(state: State, phase: 'ongoing' | 'final', config: SpConfig): Finding | null {
  const first = state.boardings[0];
  const last = state.boardings[state.boardings.length - 1];
  if (!first || !last || state.tripId === null) return null;
  const confirmedStops = new Set(state.boardings.filter((b) => !b.suspected).map((b) => b.stopId));
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
      distinctStops: new Set(state.boardings.map((b) => b.stopId)).size,
      confirmedDistinctStops: confirmedStops.size,
      boardings: state.boardings.length,
      minDistinctStops: config.regularService.minDistinctStops,
      stops: state.boardings.map((b) => ({
        stopId: b.stopId,
        name: b.stopName,
        at: new Date(b.atMs).toISOString(),
        suspected: b.suspected,
      })),
    },
    confidence: confirmedStops.size >= config.regularService.minDistinctStops ? 'confirmed' : 'suspected',
    variant: null,
    unitsFactor: state.boardings.length,
    trip: { id: state.tripId, startedAt: state.tripStartMs, endedAt: last.atMs },
  };
}

const empty: State = { tripId: null, tripStartMs: 0, boardings: [], raised: false };

export const regularServicePatternRule = defineRule<State, SpConfig, SpContext>({
  id: 'FRET_REGULAR_SERVICE_PATTERN',
  pack: 'sp-fretamento',
  legalBasis: ['Art. 18', 'Art. 29 I'],
  description: {
    pt: 'Veículo de fretamento operando como linha regular: embarques em várias paradas do serviço regular na mesma viagem.',
    en: 'Charter vehicle running as a regular line: boardings at several regular-service stops on one trip.',
  },
  penalty: () => fine('ORTN', 10, 'Art. 29 I (10 ORTN each boarding)', { opensCancellation: true }),
  init: () => empty,
  step(state, ctx, config) {
    if (state.tripId === ctx.charterTrip.trip.id && ctx.dwell.stopDwell === null)
      return { state, findings: noFindings };
    const findings: Finding[] = [];
    let s = state;
    const trip = ctx.charterTrip.trip;
    if (s.tripId !== trip.id) {
      if (s.raised) {
        const f = finding(s, 'final', config);
        if (f) findings.push(f);
      }
      s = { ...empty, tripId: trip.id, tripStartMs: trip.startMs };
    }
    const dwell = ctx.dwell.stopDwell;
    const verdict = dwell ? boardingAtStop(dwell, config) : null;
    if (dwell && verdict && !s.boardings.some((b) => b.dwellId === dwell.id)) {
      s = {
        ...s,
        boardings: [
          ...s.boardings,
          {
            dwellId: dwell.id,
            stopId: dwell.stop.id,
            stopName: dwell.stop.name,
            atMs: dwell.startMs,
            suspected: verdict.suspected,
            lat: dwell.lat,
            lon: dwell.lon,
          },
        ],
      };
      const distinct = new Set(s.boardings.map((b) => b.stopId)).size;
      if (distinct >= config.regularService.minDistinctStops) {
        const f = finding(s, 'ongoing', config);
        if (f) findings.push(f);
        s = { ...s, raised: true };
      }
    }
    return { state: s, findings };
  },
  close(state, _info, config) {
    const f = state.raised ? finding(state, 'final', config) : null;
    return { state: empty, findings: f ? [f] : [] };
  },
});
