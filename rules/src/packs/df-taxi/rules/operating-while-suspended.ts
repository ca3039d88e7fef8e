import { type RegistryBreach, registryStateRule } from '../../common/daily-registry-rule.js';
import {
  operatingForSuspension,
  type SuspensionBasis,
  suspensionBreach,
} from '../../common/operating-while-suspended.js';
import type { TaxiContext } from '../../common/taxi-context.js';
import type { DfConfig } from '../config.js';
import { dfGroupPenalty } from '../penalty.js';

/**
 * DF_OPERATING_WHILE_SUSPENDED — a taxi in service (meter hired or stopped, or passengers on
 * board while moving) while the registry shows its permit or the vehicle out of service:
 * - `permit-suspended`: the service interrupted at the holder's request (Art. 15, up to 2 years);
 * - `permit-withdrawn`: the permit or matrícula *recolhida* for an unpaid fine (Art. 54, 30 days);
 * - `permit-cancelled`: cancelled (Art. 17, Art. 54 sole paragraph), no return for 4 years (Art. 18);
 * - `vehicle-suspended` / `vehicle-withdrawn`: the vehicle's own registration (a taxi is a car
 *   registered with the DCP, Art. 23);
 * - `matricula-suspended` / `matricula-withdrawn`: the identified driver's *matrícula* suspended or
 *   *recolhida* (driver `status`, Art. 54), whatever the permit's state.
 * Anexo I is not in the published text: the group is `groups.DF_OPERATING_WHILE_SUSPENDED`
 * (default C, **interpretation**). One continuing event per registry state, as long as it lasts.
 */
const basis: SuspensionBasis = {
  'permit-suspended': 'Art. 15',
  'permit-withdrawn': 'Art. 54',
  'permit-cancelled': 'Art. 18',
  'vehicle-suspended': 'Art. 23',
  'vehicle-withdrawn': 'Art. 23',
};

export const dfOperatingWhileSuspendedRule = registryStateRule<DfConfig, TaxiContext>({
  id: 'DF_OPERATING_WHILE_SUSPENDED',
  pack: 'df-taxi',
  legalBasis: ['Art. 15', 'Art. 18', 'Art. 54'],
  description: {
    pt: 'Táxi em serviço com a permissão ou o veículo suspenso, recolhido ou cancelado.',
    en: 'Taxi in service while its permit or the vehicle is suspended, withdrawn or cancelled.',
  },
  penalty: (config) => dfGroupPenalty(config, 'DF_OPERATING_WHILE_SUSPENDED'),
  operating: (ctx) => operatingForSuspension(ctx),
  check(ctx): RegistryBreach | null {
    const breach = suspensionBreach(ctx.vehicle, basis);
    if (breach || !ctx.vehicle) return breach;
    const driverId = ctx.sample.tachoDriverId;
    const driver = driverId === null ? null : ctx.registry.driver(driverId, ctx.ms);
    if (!driver || driver.status === 'active') return null;
    const variant = `matricula-${driver.status}`;
    return {
      variant,
      key: `${variant}:${driver.id}`,
      subKey: driver.id,
      suspected: false,
      measured: { driverId: driver.id, driverStatus: driver.status, basis: 'Art. 54' },
    };
  },
});
