import { defineRule, type Finding, noFindings } from '../../../engine/rule.js';
import { fine } from '../../common/penalty-helpers.js';
import { type LastReport, shouldReport } from '../../common/report-throttle.js';
import { round } from '../../common/round.js';
import type { SpConfig } from '../config.js';
import type { SpContext } from '../context.js';
import { classifyBoarding, type StopDwell } from '../dwell-detector.js';

/**
 * FRET_BOARDING_AT_REGULAR_STOP — Decreto (SP), Art. 10 §3 and Art. 11 §3 (Decreto 51.396/2006):
 * "As operações de embarque não poderão ser realizadas em locais utilizados por prestadoras de
 * serviço regular de transporte coletivo de passageiros." Penalty: Art. 23 V, 10 ORTN.
 *
 * Fires when the bus dwells (speed ≤ 5 km/h for ≥ 15 s) within 30 m of a regular-service stop
 * and people board: occupancy sensor → confirmed; door only → `doorOnlyConfidence`; no door or
 * occupancy data at all → suspected. An occupancy sensor that shows nobody boarding clears the
 * dwell even if the door opened (passengers got off).
 */

export function boardingAtStop(dwell: StopDwell, config: SpConfig): { kind: string; suspected: boolean } | null {
  if (dwell.durationS < config.boardingAtStop.dwellMinSeconds) return null;
  const kind = classifyBoarding(dwell.evidence);
  if (kind === null) return null;
  if (kind === 'occupancy') return { kind, suspected: false };
  if (kind === 'door') return { kind, suspected: config.boardingAtStop.doorOnlyConfidence === 'suspected' };
  return config.boardingAtStop.flagDwellWithoutSensors ? { kind, suspected: true } : null;
}

function finding(
  dwell: StopDwell,
  verdict: { kind: string; suspected: boolean },
  phase: 'ongoing' | 'final',
  config: SpConfig,
): Finding {
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
      passengersMax: e.passengersMax,
      doorOpened: e.doorOpened,
      stopSource: dwell.stop.source,
    },
    confidence: verdict.suspected ? 'suspected' : 'confirmed',
    variant: null,
  };
}

interface State {
  readonly raised: {
    readonly dwellId: string;
    readonly verdict: { kind: string; suspected: boolean };
    readonly reported: LastReport;
  } | null;
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
  init: () => ({ raised: null }),
  step(state, ctx, config) {
    if (state.raised === null && ctx.dwell.stopDwell === null) return { state, findings: noFindings };
    const findings: Finding[] = [];
    const ended = ctx.dwell.stopDwellEnded;
    if (ended && state.raised?.dwellId === ended.id) {
      findings.push(finding(ended, boardingAtStop(ended, config) ?? state.raised.verdict, 'final', config));
    }
    const dwell = ctx.dwell.stopDwell;
    const verdict = dwell ? boardingAtStop(dwell, config) : null;
    if (dwell && verdict) {
      const confidence = verdict.suspected ? 'suspected' : 'confirmed';
      const last = state.raised?.dwellId === dwell.id ? state.raised.reported : null;
      if (shouldReport(last, dwell.lastMs, confidence, null, ctx.general.updateIntervalS)) {
        findings.push(finding(dwell, verdict, 'ongoing', config));
        return {
          state: {
            raised: { dwellId: dwell.id, verdict, reported: { endedAt: dwell.lastMs, confidence, variant: null } },
          },
          findings,
        };
      }
      return { state, findings };
    }
    return { state: { raised: dwell && state.raised?.dwellId === dwell.id ? state.raised : null }, findings };
  },
  close: () => ({ state: { raised: null }, findings: noFindings }),
});
