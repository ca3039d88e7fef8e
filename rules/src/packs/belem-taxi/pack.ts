import type { PackRuntime } from '../../engine/pack-runtime.js';
import type { PackRule, RuleMeta } from '../../engine/rule.js';
import { assessBelemRecidivism } from '../../penalties/recidivism.js';
import type { TaxiContext } from '../common/taxi-context.js';
import { createTaxiRuntime } from '../common/taxi-pack.js';
import { type BelemConfig, type BelemConfigInput, belemConfigSchema } from './config.js';
import { belemBandeira2MisuseRule } from './rules/bandeira2-misuse.js';
import {
  belemDetourRule,
  belemOverCapacityRule,
  belemOverchargeRule,
  belemUnsafeDrivingRule,
} from './rules/driving-rules.js';
import { belemOperatingWhileSuspendedRule } from './rules/operating-while-suspended.js';
import { belemSpecialTariffVehicleTooOldRule } from './rules/special-tariff-vehicle-too-old.js';
import { belemStandAbandonedRule } from './rules/stand-abandoned.js';
import { belemStandOverflowRule, belemStandQueueJumpRule, belemStandUnauthorizedRule } from './rules/stand-rules.js';
import { belemUnauthorizedRadioRule, judgeDispatch } from './rules/unauthorized-radio.js';
import { belemUnregisteredDriverRule } from './rules/unregistered-driver.js';
import { belemDivExpiredRule, belemVehicleTooOldRule } from './rules/vehicle-rules.js';

export const belemRules: readonly PackRule<BelemConfig, TaxiContext>[] = [
  belemBandeira2MisuseRule,
  belemOverCapacityRule,
  belemStandUnauthorizedRule,
  belemDivExpiredRule,
  belemVehicleTooOldRule,
  belemDetourRule,
  belemOverchargeRule,
  belemUnsafeDrivingRule,
  belemOperatingWhileSuspendedRule,
  belemUnregisteredDriverRule,
  belemStandAbandonedRule,
  belemSpecialTariffVehicleTooOldRule,
];

export const belemOtherRules: readonly RuleMeta<BelemConfig>[] = [
  belemStandOverflowRule,
  belemStandQueueJumpRule,
  belemUnauthorizedRadioRule,
];

/** The belem-taxi pack (Belém municipal taxis) with its configuration. */
export function createBelemTaxiPack(input: BelemConfigInput = {}): PackRuntime {
  const config = belemConfigSchema.parse(input);
  return createTaxiRuntime<BelemConfig>({
    pack: 'belem-taxi',
    config,
    general: config.general,
    timeZone: config.timeZone,
    holidays: {
      state: config.holidays.state,
      countedTypes: config.holidays.countedTypes,
      fixed: config.holidays.fixed,
    },
    disabledRules: config.disabledRules,
    rules: belemRules,
    otherRules: belemOtherRules,
    presence: config.stands,
    board: {
      queueJump: 'BEL_STAND_QUEUE_JUMP',
      overflow: { ruleId: 'BEL_STAND_OVERFLOW', minStayS: config.stands.overflowMinStayS },
    },
    tripMaxGapS: config.tripMaxGapS,
    tripDistance: config.tripDistance,
    dispatch(record, registry) {
      const f = judgeDispatch(record, registry, config.timeZone);
      return f ? [f] : [];
    },
    assessRecidivism: (violation, priors) =>
      assessBelemRecidivism(violation, priors, config.recidivism, config.timeZone),
  });
}

export { type BelemConfig, type BelemConfigInput, belemConfigSchema };
