import { addMonths, daysBetween, type LocalDate } from '../../../time/local-time.js';
import { type RegistryBreach, registryStateRule } from '../../common/daily-registry-rule.js';
import { registryNonCompliance } from '../../common/penalty-helpers.js';
import type { TaxiContext } from '../../common/taxi-context.js';
import type { BelemConfig } from '../config.js';
import { belemGroupPenalty } from '../penalty.js';

/**
 * Age under Art. 27 sole paragraph: "tomar-se-á por base o 31 de dezembro de cada ano,
 * completando o veículo o seu primeiro ano de fabricação no dia trinta e um de dezembro do seu
 * ano modelo" — a vehicle turns 1 on 31 December of its model year, and one more every
 * 31 December after.
 */
export function belemVehicleAge(modelYear: number, date: LocalDate): number {
  const year = Number(date.slice(0, 4));
  const isNewYearsEve = date.endsWith('-12-31');
  return year - modelYear + (isNewYearsEve ? 1 : 0);
}

/** The first local date a vehicle of `modelYear` is past `maxAgeYears` under Art. 27 sole paragraph. */
export function belemAgeLimitDate(modelYear: number, maxAgeYears: number): LocalDate {
  return `${modelYear + maxAgeYears}-12-31`;
}

/**
 * BEL_VEHICLE_TOO_OLD — Art. 27 (at most 10 years) and Art. 28 II (a vehicle past 10 years that
 * passes the yearly inspection gets a D.I.V. for 6 months, "renovado por igual período e
 * mediante nova vistoria, quando deverão ser obrigatoriamente substituídos"). So an extension
 * runs at most 6 + 6 months: whatever date the registry holds, none runs past 12 months after
 * the day the vehicle passed the limit (inclusive, counted to the same day of the month, Lei
 * 810/1949). Variants: `no-extension` (past 10 years with no extension on record: registry
 * non-compliance), `extension-expired` (the renewal inspection was missed: Art. 58 item 2.3,
 * group II, 30 IPCA-E) and `replacement-due` (past the 12 months: the vehicle had to be
 * replaced, Art. 28 II; registry non-compliance). One continuing violation per breach.
 */
export const belemVehicleTooOldRule = registryStateRule<BelemConfig, TaxiContext>({
  id: 'BEL_VEHICLE_TOO_OLD',
  pack: 'belem-taxi',
  legalBasis: ['Art. 27', 'Art. 27 sole paragraph', 'Art. 28 II'],
  description: {
    pt: 'Táxi em operação com mais de 10 anos de fabricação sem prorrogação semestral vigente.',
    en: 'Taxi operating past 10 years without a current 6-month extension.',
  },
  penalty: (_config, variant) =>
    variant === 'extension-expired'
      ? belemGroupPenalty('II', '2.3')
      : registryNonCompliance(variant === 'replacement-due' ? 'Art. 28 II' : 'Art. 27; Art. 28'),
  check(ctx, config): RegistryBreach | null {
    const v = ctx.vehicle;
    if (!v) return null;
    const modelYear = v.modelYear ?? v.manufactureYear;
    const today = ctx.local.date;
    const age = belemVehicleAge(modelYear, today);
    if (age <= config.vehicleAge.maxAgeYears) return null;
    const limit = belemAgeLimitDate(modelYear, config.vehicleAge.maxAgeYears);
    const extensionLimit = addMonths(limit, 12);
    const ext = v.ageExtensionValidUntil;
    const measured = {
      modelYear,
      ageYears: age,
      maxAgeYears: config.vehicleAge.maxAgeYears,
      ageLimitPassedOn: limit,
      ageExtensionValidUntil: ext,
      extensionLimit,
    };
    if (ext === null) return { variant: 'no-extension', suspected: false, key: `no-extension:${limit}`, measured };
    if (today > extensionLimit)
      return { variant: 'replacement-due', suspected: false, key: `replacement-due:${extensionLimit}`, measured };
    if (ext >= today) return null;
    return { variant: 'extension-expired', suspected: false, key: `extension-expired:${ext}`, measured };
  },
});

/**
 * BEL_DIV_EXPIRED — Art. 30 (every taxi circulates with its D.I.V.) and Art. 31 (renewed every
 * year); Art. 58 item 4.2 ("trafegar com veículo sem o D.I.V ou com este vencido", group IV,
 * 70 IPCA-E). A registry without any D.I.V. date gives a suspected finding (the date may just be
 * missing). One continuing violation per lapsed D.I.V.
 */
export const belemDivExpiredRule = registryStateRule<BelemConfig, TaxiContext>({
  id: 'BEL_DIV_EXPIRED',
  pack: 'belem-taxi',
  legalBasis: ['Art. 30', 'Art. 31', 'Art. 58 item 4.2'],
  description: {
    pt: 'Táxi trafegando sem o D.I.V. ou com o D.I.V. vencido.',
    en: 'Taxi operating without a valid D.I.V. (vehicle traffic authorization).',
  },
  penalty: () => belemGroupPenalty('IV', '4.2'),
  check(ctx): RegistryBreach | null {
    const v = ctx.vehicle;
    if (!v) return null;
    if (v.divValidUntil === null)
      return { variant: 'no-div-on-record', suspected: true, key: 'div:none', measured: { divValidUntil: null } };
    if (v.divValidUntil >= ctx.local.date) return null;
    return {
      variant: null,
      suspected: false,
      key: `div:${v.divValidUntil}`,
      measured: { divValidUntil: v.divValidUntil, daysOverdue: daysBetween(v.divValidUntil, ctx.local.date) },
    };
  },
});
