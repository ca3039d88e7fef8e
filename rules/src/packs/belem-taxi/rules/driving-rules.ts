import { detourRule } from '../../common/detour-rule.js';
import { overCapacityRule } from '../../common/over-capacity-rule.js';
import { overchargeRule } from '../../common/overcharge-rule.js';
import { speedingRule } from '../../common/speeding-rule.js';
import type { TaxiContext } from '../../common/taxi-context.js';
import type { BelemConfig } from '../config.js';
import { belemGroupPenalty } from '../penalty.js';

/** BEL_OVER_CAPACITY — Art. 3 I (a taxi has "capacidade máxima de cinco passageiros") and Art. 58 item 2.6 (group II, 30 IPCA-E). */
export const belemOverCapacityRule = overCapacityRule<BelemConfig, TaxiContext>({
  id: 'BEL_OVER_CAPACITY',
  pack: 'belem-taxi',
  legalBasis: ['Art. 3 I', 'Art. 58 item 2.6'],
  description: {
    pt: 'Não respeitar a capacidade de lotação do veículo (máximo de 5 passageiros).',
    en: 'Passengers above the vehicle’s capacity (at most 5).',
  },
  penalty: () => belemGroupPenalty('II', '2.6'),
  permitted: (capacity, config) => Math.min(capacity, config.capacity.maxPassengers),
  minMovingSeconds: (config) => config.capacity.minMovingSeconds,
  capacityBasis: 'registered capacity, never above 5 (Art. 3 I)',
});

/**
 * BEL_UNSAFE_DRIVING — Art. 58 item 2.5 ("conduzir o veículo de forma a criar riscos à segurança",
 * group II, 30 IPCA-E), read as sustained speeding: above the limit in force (a speed-limit
 * zone's own limit, higher or lower, else the pack default of 60 km/h) plus the measurement
 * tolerance (7 km/h up to 100 km/h, 7 % above) for ≥ 20 s.
 */
export const belemUnsafeDrivingRule = speedingRule<BelemConfig, TaxiContext>({
  id: 'BEL_UNSAFE_DRIVING',
  pack: 'belem-taxi',
  legalBasis: ['Art. 58 item 2.5'],
  description: {
    pt: 'Condução que cria riscos à segurança: velocidade acima do limite.',
    en: 'Driving that creates risks: speed above the limit.',
  },
  penalty: () => belemGroupPenalty('II', '2.5'),
  settings: (config) => config.speed,
});

/** BEL_DETOUR — Art. 58 item 3.5 ("seguir propositadamente itinerário mais extenso e desnecessário", group III). Always suspected. */
export const belemDetourRule = detourRule<BelemConfig>({
  id: 'BEL_DETOUR',
  pack: 'belem-taxi',
  legalBasis: ['Art. 58 item 3.5'],
  description: {
    pt: 'Possível itinerário mais extenso e desnecessário.',
    en: 'Possible unnecessarily long itinerary.',
  },
  penalty: () => belemGroupPenalty('III', '3.5'),
  settings: (config) => config.detour,
});

/** BEL_OVERCHARGE — Art. 14 II ("cobrar os preços tarifados"), Art. 34 and Art. 58 item 3.3 (group III), against Belém's tariff decree. */
export const belemOverchargeRule = overchargeRule<BelemConfig>({
  id: 'BEL_OVERCHARGE',
  pack: 'belem-taxi',
  legalBasis: ['Art. 14 II', 'Art. 34', 'Art. 58 item 3.3'],
  description: {
    pt: 'Cobrança acima da tarifa vigente.',
    en: 'Fare charged above the tariff in force.',
  },
  penalty: () => belemGroupPenalty('III', '3.3'),
  fareModel(_ctx, config) {
    const t = config.tariff;
    if (t.bandeiradaCents === null || t.kmB1Cents === null || t.kmB2Cents === null) return null;
    return {
      bandeiradaCents: t.bandeiradaCents,
      kmCents1: t.kmB1Cents,
      kmCents2: t.kmB2Cents,
      waitingHourCents: t.waitingHourCents,
      baggageMaxFraction: t.baggageMaxFraction,
      description: `bandeirada ${t.bandeiradaCents} c, km B1 ${t.kmB1Cents} c, km B2 ${t.kmB2Cents} c, hour ${t.waitingHourCents ?? '—'} c`,
    };
  },
  settings: (config) => config.overcharge,
});
