import { overchargeRule } from '../../common/overcharge-rule.js';
import type { DfConfig } from '../config.js';
import { dfGroupPenalty } from '../penalty.js';

/**
 * DF_OVERCHARGE — Art. 45 I–IV (bandeirada 4 UT; km at Bandeira I, Bandeira II = I + 50 %;
 * baggage 10 % per extra volume, at most 50 %) and Art. 48 V (hora parada). Prices in UT,
 * converted at the UT value in force on the trip's date (registry unit value `UT`).
 */
export const dfOverchargeRule = overchargeRule<DfConfig>({
  id: 'DF_OVERCHARGE',
  pack: 'df-taxi',
  legalBasis: ['Art. 45 I', 'Art. 45 II', 'Art. 45 III', 'Art. 45 IV', 'Art. 48 V'],
  description: {
    pt: 'Valor cobrado no taxímetro acima da tarifa recalculada a partir do trajeto.',
    en: 'Meter fare above the fare recomputed from the trace and the tariff table.',
  },
  penalty: (config) => dfGroupPenalty(config, 'DF_OVERCHARGE'),
  fareModel(ctx, config) {
    const t = config.tariff;
    const ut = ctx.registry.unitValue('UT', 'df-taxi', ctx.local.date);
    if (!ut || t.kmB1Ut === null) return null;
    const utCents = ut.valueBrl * 100;
    return {
      bandeiradaCents: t.bandeiradaUt * utCents,
      kmCents1: t.kmB1Ut * utCents,
      kmCents2: t.kmB1Ut * (1 + t.bandeira2Surcharge) * utCents,
      waitingHourCents: t.waitingHourUt === null ? null : t.waitingHourUt * utCents,
      baggageMaxFraction: t.baggageMaxFraction,
      description: `bandeirada ${t.bandeiradaUt} UT, km ${t.kmB1Ut} UT (B2 +${t.bandeira2Surcharge * 100} %), UT = R$ ${ut.valueBrl} from ${ut.validFrom}`,
    };
  },
  settings: (config) => config.overcharge,
});
