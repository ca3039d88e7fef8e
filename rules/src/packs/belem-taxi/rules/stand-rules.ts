import type { RuleMeta } from '../../../engine/rule.js';
import type { StandRecord } from '../../../registry/records.js';
import { round } from '../../common/round.js';
import { holdsPlace } from '../../common/stand-presence.js';
import { sustainedRule } from '../../common/sustained-rule.js';
import type { TaxiContext } from '../../common/taxi-context.js';
import type { BelemConfig } from '../config.js';
import { belemGroupPenalty } from '../penalty.js';

export { holdsPlace };

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

/**
 * BEL_STAND_OVERFLOW — Art. 3 XIV b (a *ponto livre* "desde que não ultrapasse o número de
 * vagas"); Art. 58 item 1.5, group I. Decided by the stand board: only WAITING taxis count and
 * are flagged — free (meter free) and stopped at the stand for `stands.overflowMinStayS`. A
 * hired taxi stopping to let a passenger pay and get out is not parking there.
 */
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

/**
 * BEL_STAND_QUEUE_JUMP — Art. 3 XIV (the stands and their use: a *ponto fixo* is its holders',
 * a *ponto livre* any taxi's up to its places), Art. 58 item 3.1 (group III, 40 IPCA-E:
 * *concorrência desleal* — taking the passenger of a colleague waiting ahead). Decided by the
 * stand board, as DF_STAND_QUEUE_JUMP: a hire inside the stand area (or within `hireEdgeM`
 * and `hireAfterLeavingS` of leaving it) while a taxi of the queue that entered earlier is still
 * there and free. At a *ponto fixo* only holders queue: a holder hired ahead of a taxi without
 * a place there jumped nobody (that taxi is BEL_STAND_UNAUTHORIZED's).
 */
export const belemStandQueueJumpRule: RuleMeta<BelemConfig> = {
  id: 'BEL_STAND_QUEUE_JUMP',
  pack: 'belem-taxi',
  legalBasis: ['Art. 3 XIV', 'Art. 58 item 3.1'],
  description: {
    pt: 'Desrespeito à fila do ponto: embarque de passageiro à frente de táxi que chegou antes.',
    en: 'Stand queue jumped: hired ahead of a taxi that arrived earlier and was still waiting.',
  },
  penalty: () => belemGroupPenalty('III', '3.1'),
};
