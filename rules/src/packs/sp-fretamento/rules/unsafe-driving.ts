import { fine } from '../../common/penalty-helpers.js';
import { speedingRule } from '../../common/speeding-rule.js';
import type { SpConfig } from '../config.js';
import type { SpContext } from '../context.js';

/**
 * FRET_UNSAFE_DRIVING — Art. 26 IV: "o motorista dirigir o veículo de modo a comprometer a
 * segurança ou o conforto dos passageiros" (25 ORTN). Read from telemetry as sustained speeding:
 * above the limit in force — a speed-limit zone's own limit, higher or lower, else the pack
 * default of 80 km/h — plus a measurement tolerance (7 km/h up to 100 km/h, 7 % above) for ≥ 20 s.
 */
export const unsafeDrivingRuleSp = speedingRule<SpConfig, SpContext>({
  id: 'FRET_UNSAFE_DRIVING',
  pack: 'sp-fretamento',
  legalBasis: ['Art. 26 IV'],
  description: {
    pt: 'Direção que compromete a segurança dos passageiros: velocidade acima do limite.',
    en: 'Driving that endangers passengers: speed above the limit.',
  },
  penalty: () => fine('ORTN', 25, 'Art. 26 IV'),
  settings: (config) => config.speed,
});
