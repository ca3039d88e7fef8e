import { detourRule } from '../../common/detour-rule.js';
import type { DfConfig } from '../config.js';
import { dfGroupPenalty } from '../penalty.js';

/** DF_DETOUR — Art. 37 j: "seguir o itinerário mais curto, salvo determinação expressa do passageiro". Always suspected. */
export const dfDetourRule = detourRule<DfConfig>({
  id: 'DF_DETOUR',
  pack: 'df-taxi',
  legalBasis: ['Art. 37 j'],
  description: {
    pt: 'Possível desvio do itinerário mais curto (corrida muito mais longa que a distância entre origem e destino).',
    en: 'Possible detour: trip much longer than the distance between its start and end.',
  },
  penalty: (config) => dfGroupPenalty(config, 'DF_DETOUR'),
  settings: (config) => config.detour,
});
