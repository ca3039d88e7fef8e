import { type RegistryBreach, registryStateRule } from '../../common/daily-registry-rule.js';
import { registryNonCompliance } from '../../common/penalty-helpers.js';
import type { TaxiContext } from '../../common/taxi-context.js';
import type { BelemConfig } from '../config.js';
import { belemVehicleAge } from './vehicle-rules.js';

/**
 * BEL_SPECIAL_TARIFF_VEHICLE_TOO_OLD — Art. 36 (the cooperative service with differentiated
 * tariffs is *transporte especial*) and Art. 37 (its vehicles have "no máximo, sete anos de
 * fabricação, quando deverão ser obrigatoriamente substituídos"). A vehicle the registry marks
 * `specialTariffService` operating (moving) past `specialTariff.maxAgeYears`, the age counted as
 * `specialTariff.ageCounting` says (default: as Art. 27 sole paragraph counts it). A registry
 * non-compliance (no fine of its own); one continuing event while it lasts.
 */
export const belemSpecialTariffVehicleTooOldRule = registryStateRule<BelemConfig, TaxiContext>({
  id: 'BEL_SPECIAL_TARIFF_VEHICLE_TOO_OLD',
  pack: 'belem-taxi',
  legalBasis: ['Art. 36', 'Art. 37'],
  description: {
    pt: 'Veículo do transporte especial (cooperativa, tarifa diferenciada) em operação com mais de 7 anos de fabricação.',
    en: 'Special-tariff cooperative vehicle operating past 7 years of manufacture.',
  },
  penalty: () => registryNonCompliance('Art. 37'),
  check(ctx, config): RegistryBreach | null {
    const v = ctx.vehicle;
    if (!v?.specialTariffService) return null;
    const { maxAgeYears, ageCounting } = config.specialTariff;
    const age =
      ageCounting === 'art-27-model-year'
        ? belemVehicleAge(v.modelYear ?? v.manufactureYear, ctx.local.date)
        : ctx.local.year - v.manufactureYear;
    if (age <= maxAgeYears) return null;
    return {
      variant: null,
      key: 'over-age',
      suspected: false,
      measured: {
        manufactureYear: v.manufactureYear,
        modelYear: v.modelYear,
        ageYears: age,
        maxAgeYears,
        ageCounting,
        specialTariffService: true,
      },
    };
  },
});
