import type { RuleMeta } from '../../../engine/rule.js';
import type { DfConfig } from '../config.js';
import { dfGroupPenalty } from '../penalty.js';

/**
 * DF_STAND_QUEUE_JUMP — Art. 37 m ("manter-se e respeitar a fila dos veículos nos pontos de
 * táxis") and n (keep the queue near hotels, stations and other concentration points). Decided
 * by the stand board across taxis (packs/common/stand-board.ts, stand-queue.ts): a taxi is hired
 * **inside the stand area** (or within `stands.hireEdgeM` of it while still there or at most
 * `stands.hireAfterLeavingS` after leaving) while another taxi of the queue that entered ≥ 30 s
 * before it is still there and free, and is not itself hired or gone within
 * `stands.hireOrderToleranceS` (two passengers at once; pulling out). A taxi that leaves the
 * stand free and is hailed farther away answered a hail, which Art. 37 e obliges: not a jump.
 * Presence reads GPS faults as faults (stand-presence.ts): multipath fixes, dropouts and canyon
 * wander do not cost a taxi its place; what rests on a silence is only suspected. Only taxis entitled to the stand
 * (at a reserved stand, its holders) form its queue. Evidence is the queue snapshot.
 */
export const dfStandQueueJumpRule: RuleMeta<DfConfig> = {
  id: 'DF_STAND_QUEUE_JUMP',
  pack: 'df-taxi',
  legalBasis: ['Art. 37 m', 'Art. 37 n'],
  description: {
    pt: 'Desrespeito à fila do ponto de táxi: embarque de passageiro à frente de táxi que chegou antes.',
    en: 'Stand queue jumped: hired ahead of a taxi that arrived earlier and was still waiting.',
  },
  penalty: (config) => dfGroupPenalty(config, 'DF_STAND_QUEUE_JUMP'),
};
