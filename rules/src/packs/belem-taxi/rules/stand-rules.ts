import type { RuleMeta } from '../../../engine/rule.js';
import type { StandRecord, VehicleRecord } from '../../../registry/records.js';
import { round } from '../../common/round.js';
import { sustainedRule } from '../../common/sustained-rule.js';
import type { TaxiContext } from '../../common/taxi-context.js';
import type { BelemConfig } from '../config.js';
import { belemGroupPenalty } from '../penalty.js';

/** Does the vehicle hold a place at the *ponto fixo* (itself, or through its cooperative/radio/association)? */
export function holdsPlace(stand: StandRecord, vehicle: VehicleRecord | null, vehicleId: string): boolean {
  if (stand.holderVehicleIds.includes(vehicleId)) return true;
  return vehicle?.operatorId != null && stand.holderOperatorIds.includes(vehicle.operatorId);
}

/**
 * BEL_STAND_UNAUTHORIZED — Art. 3 XIV a: a *ponto fixo* "só pode ser utilizado pelos Taxistas
 * titulares das vagas". A taxi waits there (free, ≥ 2 min) without a place. The law lists no
 * item for it; the group is configuration (default I, by analogy with item 1.5). With no meter
 * data the waiting is only suspected.
 */
export const belemStandUnauthorizedRule = sustainedRule<{ stand: StandRecord }, BelemConfig, TaxiContext>({
  id: 'BEL_STAND_UNAUTHORIZED',
  pack: 'belem-taxi',
  legalBasis: ['Art. 3 XIV a'],
  description: {
    pt: 'Táxi estacionado em ponto fixo sem ser titular de vaga.',
    en: 'Taxi waiting at a ponto fixo (reserved stand) where it holds no place.',
  },
  penalty: (config) => belemGroupPenalty(config.stands.unauthorizedGroup, '1.5 (analogy)'),
  observe(ctx) {
    const meter = ctx.sample.meterState;
    if (meter !== 'free' && meter !== null) return null;
    const presence = ctx.stands.present.find(
      (p) => p.stand.kind === 'fixo' && !holdsPlace(p.stand, ctx.vehicle, ctx.sample.vehicleId),
    );
    if (!presence) return null;
    const stand = presence.stand;
    return {
      suspected: meter === null,
      key: stand.id,
      place: { id: stand.id, kind: 'stand', name: stand.name },
      fold: () => ({ stand }),
    };
  },
  qualifies: (run, config) => run.durationS >= config.stands.unauthorizedMinWaitS,
  measured: (run, config) => ({
    standKind: 'fixo',
    waitedSeconds: round(run.durationS),
    minWaitSeconds: config.stands.unauthorizedMinWaitS,
    holders: run.extra.stand.holderVehicleIds.length + run.extra.stand.holderOperatorIds.length,
    meterState: run.suspected ? 'unknown' : 'free',
  }),
});

/** BEL_STAND_OVERFLOW — Art. 3 XIV b (a *ponto livre* "desde que não ultrapasse o número de vagas"); Art. 58 item 1.5, group I. Decided by the stand board. */
export const belemStandOverflowRule: RuleMeta<BelemConfig> = {
  id: 'BEL_STAND_OVERFLOW',
  pack: 'belem-taxi',
  legalBasis: ['Art. 3 XIV b', 'Art. 58 item 1.5'],
  description: {
    pt: 'Táxi estacionado em ponto livre já lotado (número de vagas excedido).',
    en: 'Taxi entered a ponto livre (open stand) that was already full.',
  },
  penalty: () => belemGroupPenalty('I', '1.5'),
};

/** BEL_STAND_QUEUE_JUMP — Art. 58 item 1.5 ("forçar a saída ou impedir o estacionamento do colega"), group I. Decided by the stand board, as DF_STAND_QUEUE_JUMP. */
export const belemStandQueueJumpRule: RuleMeta<BelemConfig> = {
  id: 'BEL_STAND_QUEUE_JUMP',
  pack: 'belem-taxi',
  legalBasis: ['Art. 58 item 1.5'],
  description: {
    pt: 'Desrespeito à fila do ponto: embarque de passageiro à frente de táxi que chegou antes.',
    en: 'Stand queue jumped: hired ahead of a taxi that arrived earlier and was still waiting.',
  },
  penalty: () => belemGroupPenalty('I', '1.5'),
};
