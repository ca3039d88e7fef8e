import type { PackRuntime } from '../../engine/pack-runtime.js';
import type { PackRule, RuleMeta } from '../../engine/rule.js';
import { assessDfEscalation } from '../../penalties/recidivism.js';
import type { TaxiContext } from '../common/taxi-context.js';
import { createTaxiRuntime } from '../common/taxi-pack.js';
import { type DfConfig, type DfConfigInput, dfConfigSchema } from './config.js';
import { dfBandeira2MisuseRule } from './rules/bandeira2-misuse.js';
import { dfDetourRule } from './rules/detour.js';
import { dfMeterBeforeRideRule } from './rules/meter-before-ride.js';
import { dfOperatingWhileSuspendedRule } from './rules/operating-while-suspended.js';
import { dfOverCapacityRule } from './rules/over-capacity.js';
import { dfOverchargeRule } from './rules/overcharge.js';
import { dfPermitExpiredRule, dfUnregisteredDriverRule, dfVehicleTooOldRule } from './rules/registry-rules.js';
import { dfRideWithoutMeterRule } from './rules/ride-without-meter.js';
import { dfStandQueueJumpRule } from './rules/stand-queue-jump.js';

export const dfRules: readonly PackRule<DfConfig, TaxiContext>[] = [
  dfBandeira2MisuseRule,
  dfOverCapacityRule,
  dfRideWithoutMeterRule,
  dfDetourRule,
  dfVehicleTooOldRule,
  dfPermitExpiredRule,
  dfUnregisteredDriverRule,
  dfOverchargeRule,
  dfOperatingWhileSuspendedRule,
  dfMeterBeforeRideRule,
];

export const dfOtherRules: readonly RuleMeta<DfConfig>[] = [dfStandQueueJumpRule];

/** The df-taxi pack (Distrito Federal taxis, STx-DF) with its configuration. */
export function createDfTaxiPack(input: DfConfigInput = {}): PackRuntime {
  const config = dfConfigSchema.parse(input);
  return createTaxiRuntime<DfConfig>({
    pack: 'df-taxi',
    config,
    general: config.general,
    timeZone: config.timeZone,
    holidays: {
      state: config.holidays.state,
      countedTypes: config.holidays.countedTypes,
      fixed: config.holidays.fixed,
    },
    disabledRules: config.disabledRules,
    rules: dfRules,
    otherRules: dfOtherRules,
    presence: config.stands,
    board: { queueJump: 'DF_STAND_QUEUE_JUMP', overflow: null },
    tripMaxGapS: config.tripMaxGapS,
    tripDistance: config.tripDistance,
    assessRecidivism: (violation, priors) =>
      assessDfEscalation(violation, priors, config.recidivism, config.escalation, config.timeZone),
  });
}

export { type DfConfig, type DfConfigInput, dfConfigSchema };
