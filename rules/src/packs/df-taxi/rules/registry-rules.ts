import type { DriverRecord, OperatorRecord } from '../../../registry/records.js';
import { daysBetween } from '../../../time/local-time.js';
import { type RegistryBreach, registryStateRule } from '../../common/daily-registry-rule.js';
import { registryNonCompliance } from '../../common/penalty-helpers.js';
import type { TaxiContext } from '../../common/taxi-context.js';
import type { DfConfig } from '../config.js';
import { dfGroupPenalty } from '../penalty.js';

/**
 * DF_VEHICLE_TOO_OLD — Art. 25: licensing and operation up to 12 years of manufacture; §1 (Decreto
 * 17.120/1996): after the 8th year only with a mechanic's certificate of safety; §2: the life is
 * counted from the year of manufacture on the CRLV. Variants `over-age` (> 12 years) and
 * `no-safety-certificate` (8–12 years without a valid certificate in the registry). A registry
 * non-compliance; one continuing violation per breach (the age, or the certificate that lapsed).
 */
export const dfVehicleTooOldRule = registryStateRule<DfConfig, TaxiContext>({
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
    if (age > config.vehicleAge.maxAgeYears)
      return { variant: 'over-age', suspected: false, measured, key: `over-age:${v.manufactureYear}` };
    if (age <= config.vehicleAge.certificateAfterAgeYears) return null;
    const cert = v.safetyCertificateValidUntil;
    if (cert !== null && cert >= ctx.local.date) return null;
    return {
      variant: 'no-safety-certificate',
      suspected: false,
      key: `no-safety-certificate:${cert ?? 'none'}`,
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
 * cancelamento"; Art. 17 II: past that, the permit is cancelled. So:
 * - inside the grace (day 1 to `permit.graceDays` after the last valid day) the holder may still
 *   put it in order: a `suspected` notice (variant `permit-expired-in-grace` /
 *   `matricula-expired-in-grace`) with no Anexo I group, so it counts towards no Art. 53
 *   escalation, and opens no cancellation;
 * - after it (variants `permit-expired-past-grace` / `matricula-expired-past-grace`): the
 *   configured group (C) and cancellation proceedings (Art. 17 II).
 * Each is one continuing violation per lapse (keyed by the lapsed validity date), not one per
 * day. A permit with no validity date in the registry is a registry gap: `suspected` notice.
 */
export const dfPermitExpiredRule = registryStateRule<DfConfig, TaxiContext>({
  id: 'DF_PERMIT_EXPIRED',
  pack: 'df-taxi',
  legalBasis: ['Art. 14', 'Art. 14 §3', 'Art. 17 II'],
  description: {
    pt: 'Táxi em operação com permissão ou matrícula não revalidada.',
    en: 'Taxi operating with its permit or the driver’s matrícula not revalidated.',
  },
  penalty: (config, variant) =>
    variant?.endsWith('past-grace')
      ? dfGroupPenalty(config, 'DF_PERMIT_EXPIRED', { opensCancellation: true })
      : registryNonCompliance('Art. 14 §3'),
  check(ctx, config): RegistryBreach | null {
    const v = ctx.vehicle;
    if (!v) return null;
    const today = ctx.local.date;
    const grace = config.permit.graceDays;
    if (v.permitValidUntil === null) {
      return {
        variant: 'no-permit-validity-on-record',
        suspected: true,
        key: 'permit:none',
        measured: { permitNumber: v.permitNumber, permitValidUntil: null },
      };
    }
    if (v.permitValidUntil < today) {
      const days = daysBetween(v.permitValidUntil, today);
      const past = days > grace;
      return {
        variant: past ? 'permit-expired-past-grace' : 'permit-expired-in-grace',
        suspected: !past,
        key: `permit:${v.permitValidUntil}:${past ? 'past-grace' : 'grace'}`,
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
      const past = days > grace;
      return {
        variant: past ? 'matricula-expired-past-grace' : 'matricula-expired-in-grace',
        suspected: !past,
        key: `matricula:${driver.id}:${until}:${past ? 'past-grace' : 'grace'}`,
        measured: { driverId: driver.id, matriculaValidUntil: until, daysOverdue: days, graceDays: grace },
      };
    }
    return null;
  },
});

const digits = (document: string | null): string | null => {
  const d = document?.replace(/\D/g, '') ?? '';
  return d.length > 0 ? d : null;
};

/**
 * Is the driver the permit holder? The registry records the holder as the vehicle's operator
 * (an autonomous permit holder is an operator of kind `taxi-autonomous`); the holder's own
 * driver record carries the same document (CPF).
 */
export function isPermitHolder(operator: OperatorRecord | null, driver: DriverRecord | null): boolean {
  const holder = digits(operator?.document ?? null);
  return holder !== null && driver !== null && digits(driver.document) === holder;
}

/**
 * DF_UNREGISTERED_DRIVER — Art. 36 (an autonomous permit holds at most 2 registered drivers) and
 * Art. 37 x ("manter em serviço somente motoristas matriculados"): the driver identified by the
 * tachograph/meter card is not among the vehicle's registered drivers. The permit holder is
 * always registered on their own permit (recognised by the document of their driver record).
 * A permit whose registry lists no drivers at all is a registry gap, not proof: `suspected`
 * (variant `no-drivers-on-record`). One continuing violation per driver.
 */
export const dfUnregisteredDriverRule = registryStateRule<DfConfig, TaxiContext>({
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
    const driver = ctx.registry.driver(driverId, ctx.ms);
    if (isPermitHolder(ctx.operator, driver)) return null;
    const overLimit = v.permitKind === 'autonomous' && v.driverIds.length > config.drivers.maxDriversAutonomous;
    const noDrivers = v.driverIds.length === 0;
    return {
      variant: noDrivers ? 'no-drivers-on-record' : null,
      suspected: noDrivers,
      key: `driver:${driverId}`,
      measured: {
        driverId,
        registeredDrivers: v.driverIds,
        driverKnownToRegistry: driver !== null,
        permitKind: v.permitKind,
        registeredDriversOverArt36Limit: overLimit,
      },
    };
  },
});
