import { type RegistryBreach, registryStateRule } from '../../common/daily-registry-rule.js';
import { fine } from '../../common/penalty-helpers.js';
import type { SpConfig } from '../config.js';
import type { SpContext } from '../context.js';

/**
 * FRET_DRIVER_NOT_AUTHORIZED — two cases, each a named variant:
 * - `removal-required`: Art. 23 II, "for mantido em serviço preposto da empresa cujo afastamento
 *   foi exigido pela Secretaria" (10 ORTN): the tachograph identifies a driver whose registry
 *   status the regulator set to `withdrawn`;
 * - `not-an-employee`: Art. 12 sole paragraph, "o veículo será dirigido por empregado da empresa
 *   ou entidade", breaking the Regulation (Art. 23 V, 10 ORTN): on a *serviço particular* the
 *   identified driver's employer (`operatorId`) is not the vehicle's operator. A driver id the
 *   registry does not know cannot be shown to be an employee either way: `driver-unknown`,
 *   suspected (`driverAuthorization.unknownDriverOnParticular`).
 * Needs the tachograph driver id; judged while the vehicle moves, one continuing event per
 * driver for as long as the registry keeps the breach.
 */
export const driverNotAuthorizedRule = registryStateRule<SpConfig, SpContext>({
  id: 'FRET_DRIVER_NOT_AUTHORIZED',
  pack: 'sp-fretamento',
  legalBasis: ['Art. 23 II', 'Art. 12 sole paragraph', 'Art. 23 V'],
  description: {
    pt: 'Ônibus conduzido por motorista cujo afastamento foi exigido, ou, no serviço particular, por quem não é empregado da empresa.',
    en: 'Bus driven by a driver whose removal the regulator required, or, on a private service, by a non-employee.',
  },
  penalty: (_config, variant) => fine('ORTN', 10, variant === 'removal-required' ? 'Art. 23 II' : 'Art. 23 V'),
  check(ctx, config): RegistryBreach | null {
    const v = ctx.vehicle;
    const driverId = ctx.sample.tachoDriverId;
    if (!v || driverId === null) return null;
    const driver = ctx.registry.driver(driverId, ctx.ms);
    if (driver?.status === 'withdrawn') {
      return {
        variant: 'removal-required',
        suspected: false,
        subKey: driverId,
        measured: { driverId, driverStatus: driver.status, basis: 'Art. 23 II' },
      };
    }
    if (v.serviceType !== 'particular') return null;
    if (driver === null) {
      if (config.driverAuthorization.unknownDriverOnParticular === 'ignore') return null;
      return {
        variant: 'driver-unknown',
        suspected: true,
        subKey: driverId,
        measured: { driverId, driverKnownToRegistry: false, vehicleOperatorId: v.operatorId, basis: 'Art. 12' },
      };
    }
    if (driver.operatorId !== null && driver.operatorId === v.operatorId) return null;
    return {
      variant: 'not-an-employee',
      suspected: false,
      subKey: driverId,
      measured: {
        driverId,
        driverEmployerId: driver.operatorId,
        vehicleOperatorId: v.operatorId,
        basis: 'Art. 12 sole paragraph',
      },
    };
  },
});
