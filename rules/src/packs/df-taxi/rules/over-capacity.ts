import { overCapacityRule } from '../../common/over-capacity-rule.js';
import type { TaxiContext } from '../../common/taxi-context.js';
import type { DfConfig } from '../config.js';
import { dfGroupPenalty } from '../penalty.js';

/** DF_OVER_CAPACITY — Art. 24: "capacidade para transportar até 06 (seis) passageiros, obedecidas as especificações do fabricante". */
export const dfOverCapacityRule = overCapacityRule<DfConfig, TaxiContext>({
  id: 'DF_OVER_CAPACITY',
  pack: 'df-taxi',
  legalBasis: ['Art. 24'],
  description: {
    pt: 'Transporte de passageiros acima da capacidade do veículo (máximo de 6).',
    en: 'Passengers above the vehicle’s capacity (at most 6).',
  },
  penalty: (config) => dfGroupPenalty(config, 'DF_OVER_CAPACITY'),
  permitted: (capacity, config) => Math.min(capacity, config.capacity.maxPassengers),
  minMovingSeconds: (config) => config.capacity.minMovingSeconds,
  capacityBasis: 'registered capacity, never above 6 (Art. 24)',
});
