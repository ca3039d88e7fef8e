import { registryStateRule } from '../../common/daily-registry-rule.js';
import {
  operatingForSuspension,
  type SuspensionBasis,
  suspensionBreach,
} from '../../common/operating-while-suspended.js';
import { fine } from '../../common/penalty-helpers.js';
import type { TaxiContext } from '../../common/taxi-context.js';
import type { BelemConfig } from '../config.js';
import { belemGroupUnits } from '../penalty.js';

/**
 * BEL_OPERATING_WHILE_SUSPENDED — a taxi in service (meter hired or stopped, or passengers on
 * board while moving) while the registry shows its authorization or the vehicle out of service:
 * - `permit-suspended`: the authorization *recolhida* for a set time (Art. 3 IX, Art. 15);
 * - `permit-withdrawn`: the vehicle apprehended and held at the CTBel yard (Art. 59);
 * - `permit-cancelled`: the authorization *cassada* (Art. 8);
 * - `vehicle-suspended` / `vehicle-withdrawn`: the vehicle is no longer in the CTBel taxi
 *   register (Art. 3 I).
 * Art. 58 lists no item for it: the group is `suspension.group` (default IV, that of item 4.2,
 * **interpretation**). One continuing event per registry state, as long as it lasts.
 */
const basis: SuspensionBasis = {
  'permit-suspended': 'Art. 15',
  'permit-withdrawn': 'Art. 59',
  'permit-cancelled': 'Art. 8',
  'vehicle-suspended': 'Art. 3 I',
  'vehicle-withdrawn': 'Art. 3 I',
};

export const belemOperatingWhileSuspendedRule = registryStateRule<BelemConfig, TaxiContext>({
  id: 'BEL_OPERATING_WHILE_SUSPENDED',
  pack: 'belem-taxi',
  legalBasis: ['Art. 3 IX', 'Art. 8', 'Art. 15', 'Art. 59'],
  description: {
    pt: 'Táxi em serviço com a autorização recolhida, suspensa, cassada ou com o veículo apreendido.',
    en: 'Taxi in service while its authorization is suspended, withdrawn or cancelled, or the vehicle apprehended.',
  },
  penalty: (config) =>
    fine(
      'IPCA-E',
      belemGroupUnits[config.suspension.group],
      `Art. 58 group ${config.suspension.group} (interpretation)`,
      {
        group: config.suspension.group,
      },
    ),
  operating: (ctx) => operatingForSuspension(ctx),
  check: (ctx) => suspensionBreach(ctx.vehicle, basis),
});
