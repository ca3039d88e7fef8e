import { registryStateRule } from '../../common/daily-registry-rule.js';
import { fine } from '../../common/penalty-helpers.js';
import type { SpConfig } from '../config.js';
import type { SpContext } from '../context.js';
import { ageInYear } from './vehicle-age.js';

/**
 * FRET_VEHICLE_TOO_OLD — Art. 5 sole paragraph item 1 (vehicles "com a idade máxima de 15
 * anos") and Art. 17 III (inspection periods end at 15 years). A registry non-compliance,
 * fined under the general Art. 23 V (10 ORTN). Fires when the vehicle operates with its age by
 * calendar year above the maximum: one continuing violation until the vehicle leaves service.
 */
export const vehicleTooOldRuleSp = registryStateRule<SpConfig, SpContext>({
  id: 'FRET_VEHICLE_TOO_OLD',
  pack: 'sp-fretamento',
  legalBasis: ['Art. 5 sole paragraph item 1', 'Art. 17 III', 'Art. 23 V'],
  description: {
    pt: 'Veículo em operação com mais de 15 anos de fabricação.',
    en: 'Vehicle operating past the 15-year maximum age.',
  },
  penalty: () => fine('ORTN', 10, 'Art. 23 V', { registryNonCompliance: true }),
  check(ctx, config) {
    const v = ctx.vehicle;
    if (!v) return null;
    const age = ageInYear(v, ctx.local.year);
    if (age <= config.maxVehicleAgeYears) return null;
    return {
      variant: null,
      suspected: false,
      key: `over-age:${v.manufactureYear}`,
      measured: { manufactureYear: v.manufactureYear, ageYears: age, maxAgeYears: config.maxVehicleAgeYears },
    };
  },
});
