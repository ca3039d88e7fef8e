import type { RuleMeta } from '../../../engine/rule.js';
import type { DfConfig } from '../config.js';
import { dfGroupPenalty } from '../penalty.js';

/**
 * DF_STAND_QUEUE_JUMP — Art. 37 m ("manter-se e respeitar a fila dos veículos nos pontos de
 * táxis") and n (keep the queue near hotels, stations and other concentration points). Decided
 * by the stand board across taxis (packs/common/stand-board.ts, stand-queue.ts): a taxi is hired
 * at a stand while another that entered ≥ 30 s before it is still there and free. Evidence is
 * the queue snapshot.
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
