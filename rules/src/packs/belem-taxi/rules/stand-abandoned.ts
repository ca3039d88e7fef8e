import { defineRule, type Finding, noFindings } from '../../../engine/rule.js';
import type { StandRecord } from '../../../registry/records.js';
import { confidenceOf } from '../../common/confidence.js';
import { type LastReport, shouldReport } from '../../common/report-throttle.js';
import { round } from '../../common/round.js';
import type { TaxiContext } from '../../common/taxi-context.js';
import type { BelemConfig } from '../config.js';
import { belemGroupPenalty } from '../penalty.js';
import { holdsPlace } from './stand-rules.js';

/**
 * BEL_STAND_ABANDONED — Art. 58 item 1.1 (group I, 20 IPCA-E): "abandonar o veículo no ponto de
 * estacionamento". A taxi stands inside a stand's area holding a place there (at a *ponto fixo*
 * as a holder, at a *ponto livre* any taxi occupies a place) with the ignition off, the meter
 * off and no driver identified by the tachograph/meter card — nobody reporting from it — for
 * longer than `standAbandoned.minSeconds` (2 h). A parked tracker reports seldom, so silences up
 * to `standAbandoned.maxReportGapS` do not break the stay (longer ones do: nothing is inferred
 * across them). The ignition on, the meter free or hired, a driver card, or moving ends it. With
 * no meter data at all the driver's absence is only suspected. A taxi waiting at a *ponto fixo*
 * without a place is BEL_STAND_UNAUTHORIZED, not this rule.
 */

interface Stay {
  readonly stand: StandRecord;
  readonly startMs: number;
  readonly lastMs: number;
  readonly lat: number;
  readonly lon: number;
  readonly suspected: boolean;
  readonly raised: boolean;
  readonly reported: LastReport | null;
}

interface State {
  readonly stay: Stay | null;
}

const idle: State = { stay: null };

function finding(stay: Stay, phase: 'ongoing' | 'final', config: BelemConfig): Finding {
  return {
    ruleId: 'BEL_STAND_ABANDONED',
    eventId: `${stay.stand.id}:${stay.startMs}`,
    phase,
    startedAt: stay.startMs,
    endedAt: stay.lastMs,
    lat: stay.lat,
    lon: stay.lon,
    place: { id: stay.stand.id, kind: 'stand', name: stay.stand.name },
    measured: {
      standKind: stay.stand.kind,
      abandonedSeconds: round((stay.lastMs - stay.startMs) / 1000),
      minSeconds: config.standAbandoned.minSeconds,
      ignition: 'off',
      meterState: stay.suspected ? 'unknown' : 'off',
      driverIdentified: false,
    },
    confidence: confidenceOf(stay.suspected),
    variant: null,
    driverId: null,
  };
}

/** The stand the parked, unattended taxi holds a place at, if any; null when someone is at it. */
function unattendedAt(ctx: TaxiContext): { stand: StandRecord; suspected: boolean } | null {
  const s = ctx.sample;
  if (s.ignition !== false || ctx.moving || s.tachoDriverId !== null) return null;
  if (s.meterState !== null && s.meterState !== 'off') return null;
  const hit = ctx.registry
    .standsAt(s.lat, s.lon, ctx.ms, ctx.pack)
    .find((h) => h.distanceM === 0 && (h.stand.kind === 'livre' || holdsPlace(h.stand, ctx.vehicle, s.vehicleId)));
  return hit ? { stand: hit.stand, suspected: s.meterState === null } : null;
}

export const belemStandAbandonedRule = defineRule<State, BelemConfig, TaxiContext>({
  id: 'BEL_STAND_ABANDONED',
  pack: 'belem-taxi',
  legalBasis: ['Art. 58 item 1.1'],
  description: {
    pt: 'Veículo abandonado no ponto de estacionamento (ignição desligada, sem condutor) por mais do que o tempo configurado.',
    en: 'Taxi abandoned at a stand (ignition off, nobody at it) for longer than the configured time.',
  },
  penalty: () => belemGroupPenalty('I', '1.1'),
  init: () => idle,
  step(state, ctx, config) {
    const here = unattendedAt(ctx);
    if (here === null && state.stay === null) return { state: idle, findings: noFindings };
    const findings: Finding[] = [];
    let stay = state.stay;
    const continues =
      stay !== null &&
      here !== null &&
      here.stand.id === stay.stand.id &&
      (ctx.ms - stay.lastMs) / 1000 <= config.standAbandoned.maxReportGapS;
    if (stay && !continues) {
      if (stay.raised) findings.push(finding(stay, 'final', config));
      stay = null;
    }
    if (here === null) return { state: idle, findings };
    stay = stay
      ? { ...stay, lastMs: ctx.ms, suspected: stay.suspected || here.suspected || ctx.lateDropped > 0 }
      : {
          stand: here.stand,
          startMs: ctx.ms,
          lastMs: ctx.ms,
          lat: ctx.sample.lat,
          lon: ctx.sample.lon,
          suspected: here.suspected,
          raised: false,
          reported: null,
        };
    if ((stay.lastMs - stay.startMs) / 1000 >= config.standAbandoned.minSeconds) {
      const confidence = confidenceOf(stay.suspected);
      if (shouldReport(stay.reported, stay.lastMs, confidence, null, ctx.general.updateIntervalS)) {
        findings.push(finding(stay, 'ongoing', config));
        stay = { ...stay, reported: { endedAt: stay.lastMs, confidence, variant: null } };
      }
      stay = { ...stay, raised: true };
    }
    return { state: { stay }, findings };
  },
  close(state, _info, config) {
    return { state: idle, findings: state.stay?.raised ? [finding(state.stay, 'final', config)] : [] };
  },
});
