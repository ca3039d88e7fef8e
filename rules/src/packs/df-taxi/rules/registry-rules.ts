import { daysBetween } from '../../../time/local-time.js';
import { dailyRegistryRule, type RegistryBreach } from '../../common/daily-registry-rule.js';
import { registryNonCompliance } from '../../common/penalty-helpers.js';
import type { TaxiContext } from '../../common/taxi-context.js';
import type { DfConfig } from '../config.js';
import { dfGroupPenalty } from '../penalty.js';

/**
 * DF_VEHICLE_TOO_OLD — Art. 25: licensing and operation up to 12 years of manufacture; §1 (Decreto
 * 17.120/1996): after the 8th year only with a mechanic's certificate of safety; §2: the life is
 * counted from the year of manufacture on the CRLV. Variants `over-age` (> 12 years) and
 * `no-safety-certificate` (8–12 years without a valid certificate in the registry). A registry
 * non-compliance; once per day of operation.
 */
export const dfVehicleTooOldRule = dailyRegistryRule<DfConfig, TaxiContext>({
  id: 'DF_VEHICLE_TOO_OLD',
  pack: 'df-taxi',
  legalBasis: ['Art. 25', 'Art. 25 §1', 'Art. 25 §2'],
  description: {
    pt: 'Táxi em operação com mais de 12 anos de fabricação, ou após o 8º ano sem atestado de segurança.',
    en: 'Taxi operating past 12 years of manufacture, or past its 8th year without a safety certificate.',
  },
  penalty: (_config, variant) => registryNonCompliance(variant === 'over-age' ? 'Art. 25' : 'Art. 25 §1'),
  check(ctx, config): RegistryBreach | null {
    const v = ctx.vehicle;
    if (!v) return null;
    const age = ctx.local.year - v.manufactureYear;
    const measured = { manufactureYear: v.manufactureYear, ageYears: age, maxAgeYears: config.vehicleAge.maxAgeYears };
    if (age > config.vehicleAge.maxAgeYears) return { variant: 'over-age', suspected: false, measured };
    if (age <= config.vehicleAge.certificateAfterAgeYears) return null;
    const cert = v.safetyCertificateValidUntil;
    if (cert !== null && cert >= ctx.local.date) return null;
    return {
      variant: 'no-safety-certificate',
      suspected: false,
      measured: {
        ...measured,
        safetyCertificateValidUntil: cert,
        certificateAfterAgeYears: config.vehicleAge.certificateAfterAgeYears,
      },
    };
  },
});

/**
 * DF_PERMIT_EXPIRED — Art. 14: permits and *matrículas* are revalidated every year; §3: within
 * 30 days after expiry they may still be revalidated (paying 1 UPDF), "sob pena de
 * cancelamento"; Art. 17 II: past that, the permit is cancelled. Variants `permit-expired`
 * (within the grace period), `permit-expired-past-grace` (opens cancellation) and the same for
 * the identified driver's `matricula`. Once per day of operation.
 */
export const dfPermitExpiredRule = dailyRegistryRule<DfConfig, TaxiContext>({
  id: 'DF_PERMIT_EXPIRED',
  pack: 'df-taxi',
  legalBasis: ['Art. 14', 'Art. 14 §3', 'Art. 17 II'],
  description: {
    pt: 'Táxi em operação com permissão ou matrícula não revalidada.',
    en: 'Taxi operating with its permit or the driver’s matrícula not revalidated.',
  },
  penalty: (config, variant) =>
    dfGroupPenalty(config, 'DF_PERMIT_EXPIRED', { opensCancellation: variant?.endsWith('past-grace') ?? false }),
  check(ctx, config): RegistryBreach | null {
    const v = ctx.vehicle;
    if (!v) return null;
    const today = ctx.local.date;
    const grace = config.permit.graceDays;
    if (v.permitValidUntil === null) {
      return {
        variant: 'permit-expired',
        suspected: true,
        measured: { permitNumber: v.permitNumber, permitValidUntil: null },
      };
    }
    if (v.permitValidUntil < today) {
      const days = daysBetween(v.permitValidUntil, today);
      return {
        variant: days > grace ? 'permit-expired-past-grace' : 'permit-expired',
        suspected: false,
        measured: {
          permitNumber: v.permitNumber,
          permitValidUntil: v.permitValidUntil,
          daysOverdue: days,
          graceDays: grace,
        },
      };
    }
    const driverId = ctx.sample.tachoDriverId;
    const driver = driverId === null ? null : ctx.registry.driver(driverId, ctx.ms);
    const until = driver?.matriculaValidUntil ?? null;
    if (driver && until !== null && until < today) {
      const days = daysBetween(until, today);
      return {
        variant: days > grace ? 'matricula-expired-past-grace' : 'matricula-expired',
        suspected: false,
        measured: { driverId: driver.id, matriculaValidUntil: until, daysOverdue: days, graceDays: grace },
        subKey: driver.id,
      };
    }
    return null;
  },
});

/**
 * DF_UNREGISTERED_DRIVER — Art. 36 (an autonomous permit holds at most 2 registered drivers) and
 * Art. 37 x ("manter em serviço somente motoristas matriculados"): the driver identified by the
 * tachograph/meter card is not among the vehicle's registered drivers. Once per driver per day.
 */
export const dfUnregisteredDriverRule = dailyRegistryRule<DfConfig, TaxiContext>({
  id: 'DF_UNREGISTERED_DRIVER',
  pack: 'df-taxi',
  legalBasis: ['Art. 36', 'Art. 37 x'],
  description: {
    pt: 'Motorista não matriculado na permissão conduzindo o táxi.',
    en: 'Taxi driven by a driver not registered on the permit.',
  },
  penalty: (config) => dfGroupPenalty(config, 'DF_UNREGISTERED_DRIVER'),
  operating: (ctx) => ctx.moving || ctx.sample.meterState === 'hired',
  check(ctx, config): RegistryBreach | null {
    const v = ctx.vehicle;
    const driverId = ctx.sample.tachoDriverId;
    if (!v || driverId === null || v.driverIds.includes(driverId)) return null;
    const overLimit = v.permitKind === 'autonomous' && v.driverIds.length > config.drivers.maxDriversAutonomous;
    return {
      variant: null,
      suspected: false,
      subKey: driverId,
      measured: {
        driverId,
        registeredDrivers: v.driverIds,
        driverKnownToRegistry: ctx.registry.driver(driverId, ctx.ms) !== null,
        permitKind: v.permitKind,
        registeredDriversOverArt36Limit: overLimit,
      },
    };
  },
});
