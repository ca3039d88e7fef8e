import { defineRule, type Finding, keepState, noFindings } from '../../../engine/rule.js';
import { fine } from '../../common/penalty-helpers.js';
import { type LastReport, shouldReport } from '../../common/report-throttle.js';
import { round } from '../../common/round.js';
import type { SpConfig } from '../config.js';
import type { SpContext } from '../context.js';
import { type BoardingEvidenceKind, classifyBoarding, type StopDwell } from '../dwell-detector.js';

/**
 * FRET_BOARDING_AT_REGULAR_STOP — Decreto (SP), Art. 10 §3 and Art. 11 §3 (Decreto 51.396/2006):
 * "As operações de embarque não poderão ser realizadas em locais utilizados por prestadoras de
 * serviço regular de transporte coletivo de passageiros." Penalty: Art. 23 V, 10 ORTN.
 *
 * Fires when the bus dwells (speed ≤ 5 km/h for ≥ 15 s) within 30 m of a regular-service stop
 * and people board (RULES.md, revised): `boardings` > 0, or a door opening together with a
 * passenger count higher when the bus moves off than before the dwell → confirmed. The count is
 * the door-gated one (`SampleFacts.occupancy`): a count that rises and falls back with the door
 * closed is sensor noise and boards nobody. A count rise with no door reading: suspected; door
 * only: `doorOnlyConfidence` (it may be alighting); no door or occupancy data: suspected. An
 * occupancy sensor that shows nobody boarding clears the dwell even if the door opened.
 * Counted boardings and door/no-sensor evidence are raised live; a count rise is decided when
 * the bus moves off (or at the vehicle's close, as the dwell last stood).
 */

export interface BoardingVerdict {
  readonly kind: BoardingEvidenceKind;
  readonly suspected: boolean;
}

export function boardingAtStop(dwell: StopDwell, config: SpConfig, final: boolean): BoardingVerdict | null {
  if (dwell.durationS < config.boardingAtStop.dwellMinSeconds) return null;
  const kind = classifyBoarding(dwell.evidence, final);
  if (kind === null) return null;
  if (kind === 'occupancy') return { kind, suspected: false };
  if (kind === 'door') return { kind, suspected: config.boardingAtStop.doorOnlyConfidence === 'suspected' };
  if (kind === 'count') return { kind, suspected: true };
  return config.boardingAtStop.flagDwellWithoutSensors ? { kind, suspected: true } : null;
}

function finding(dwell: StopDwell, verdict: BoardingVerdict, phase: 'ongoing' | 'final', config: SpConfig): Finding {
  const e = dwell.evidence;
  return {
    ruleId: 'FRET_BOARDING_AT_REGULAR_STOP',
    eventId: dwell.id,
    phase,
    startedAt: dwell.startMs,
    endedAt: dwell.lastMs,
    lat: dwell.lat,
    lon: dwell.lon,
    place: { id: dwell.stop.id, kind: 'stop', name: dwell.stop.name },
    measured: {
      distanceToStopM: round(dwell.minDistanceM),
      stopRadiusM: config.boardingAtStop.stopRadiusM,
      dwellSeconds: round(dwell.durationS),
      dwellMinSeconds: config.boardingAtStop.dwellMinSeconds,
      dwellMaxSpeedKmh: config.boardingAtStop.dwellMaxSpeedKmh,
      boardingEvidence: verdict.kind,
      boardings: e.boardings,
      passengersBefore: e.passengersBefore,
      passengersAfter: e.passengersAfter,
      passengersMax: e.passengersMax,
      doorOpened: e.doorOpened,
      boardingsNotDoorBacked: e.boardingsNotDoorBacked,
      countReadingsRejected: e.rejectedCounts,
      stopSource: dwell.stop.source,
    },
    confidence: verdict.suspected ? 'suspected' : 'confirmed',
    variant: null,
  };
}

interface State {
  /** The dwell at a stop in progress (decided at its end, or at close as it last stood). */
  readonly dwell: StopDwell | null;
  readonly raised: {
    readonly dwellId: string;
    readonly verdict: BoardingVerdict;
    readonly reported: LastReport;
  } | null;
}

const idle: State = { dwell: null, raised: null };

/** The decision on a dwell that is over: final finding, or withdrawal of a live alert nothing upholds. */
function decide(dwell: StopDwell, state: State, config: SpConfig): Finding[] {
  const verdict = boardingAtStop(dwell, config, true);
  if (verdict) return [finding(dwell, verdict, 'final', config)];
  if (state.raised?.dwellId !== dwell.id) return [];
  return [
    {
      ...finding(dwell, state.raised.verdict, 'final', config),
      phase: 'withdrawn',
      reason: 'the occupancy sensor shows nobody boarded by the time the bus moved off',
    },
  ];
}

export const boardingAtRegularStopRule = defineRule<State, SpConfig, SpContext>({
  id: 'FRET_BOARDING_AT_REGULAR_STOP',
  pack: 'sp-fretamento',
  legalBasis: ['Art. 10 §3', 'Art. 11 §3', 'Art. 23 V'],
  description: {
    pt: 'Embarque de passageiros em local utilizado pelo serviço regular de transporte coletivo (parada de ônibus).',
    en: 'Charter vehicle boarded passengers at a regular public-transport stop.',
  },
  penalty: () => fine('ORTN', 10, 'Art. 23 V'),
  init: () => idle,
  step(state, ctx, config) {
    const ended = ctx.dwell.stopDwellEnded;
    const dwell = ctx.dwell.stopDwell;
    if (state.dwell === null && dwell === null && ended === null) return keepState;
    const findings: Finding[] = ended ? decide(ended, state, config) : [];
    let raised = ended && state.raised?.dwellId === ended.id ? null : state.raised;
    if (dwell) {
      if (raised && raised.dwellId !== dwell.id) raised = null;
      const verdict = boardingAtStop(dwell, config, false);
      if (verdict) {
        const confidence = verdict.suspected ? 'suspected' : 'confirmed';
        if (shouldReport(raised?.reported ?? null, dwell.lastMs, confidence, null, ctx.general.updateIntervalS)) {
          findings.push(finding(dwell, verdict, 'ongoing', config));
          raised = { dwellId: dwell.id, verdict, reported: { endedAt: dwell.lastMs, confidence, variant: null } };
        }
      }
    }
    return { state: { dwell, raised: dwell ? raised : null }, findings };
  },
  close: (state, _info, config) => ({
    state: idle,
    findings: state.dwell ? decide(state.dwell, state, config) : noFindings,
  }),
});
