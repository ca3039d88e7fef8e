import { overCapacityRule } from '../../common/over-capacity-rule.js';
import { fine } from '../../common/penalty-helpers.js';
import type { SpConfig } from '../config.js';
import type { SpContext } from '../context.js';

/**
 * FRET_OVER_CAPACITY — Art. 22 I: "a empresa transportar passageiros além da lotação
 * permitida" (5 ORTN). The permitted number is the registered seats: Art. 16 sole paragraph
 * (Decreto 51.396/2006) requires coach seats (*poltronas rodoviárias*), so nobody may stand.
 */
export const overCapacityRuleSp = overCapacityRule<SpConfig, SpContext>({
  id: 'FRET_OVER_CAPACITY',
  pack: 'sp-fretamento',
  legalBasis: ['Art. 22 I', 'Art. 16 sole paragraph'],
  description: {
    pt: 'Transporte de passageiros além da lotação permitida (assentos registrados).',
    en: 'Passengers carried above the registered seats.',
  },
  penalty: () => fine('ORTN', 5, 'Art. 22 I'),
  permitted: (capacity) => capacity,
  minMovingSeconds: (config) => config.overCapacity.minMovingSeconds,
  capacityBasis: 'registered seats (Art. 16 sole paragraph)',
});
