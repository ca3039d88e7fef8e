import type { PackRuntime } from '../../engine/pack-runtime.js';
import {
  closeRules,
  exportRuleStates,
  importRuleStates,
  initRuleStates,
  type PackRule,
  peekCloseRules,
  stepRules,
} from '../../engine/rule.js';
import type { Writable } from '../../engine/sample-facts.js';
import { assessSpRecidivism } from '../../penalties/recidivism.js';
import { assertTimeZone } from '../../time/local-time.js';
import { enabledRules, RuleCatalogue } from '../common/assemble.js';
import { type CharterTrip, type CharterTripSignal, copyCharterTrip, trackCharterTripInto } from './charter-trip.js';
import { type SpConfig, type SpConfigInput, spConfigSchema } from './config.js';
import type { SpContext } from './context.js';
import { detectDwell, initialDwellState } from './dwell-detector.js';
import { boardingAtRegularStopRule } from './rules/boarding-at-regular-stop.js';
import { doorOpenMovingRule } from './rules/door-open-moving.js';
import { driverNotAuthorizedRule } from './rules/driver-not-authorized.js';
import { inspectionExpiredRule } from './rules/inspection-expired.js';
import { noContractInForceRule } from './rules/no-contract-in-force.js';
import { overCapacityRuleSp } from './rules/over-capacity.js';
import { regularServicePatternRule } from './rules/regular-service-pattern.js';
import { routeDeviationRule } from './rules/route-deviation.js';
import { tachographMismatchRule, tachographMissingRule } from './rules/tachograph.js';
import { unregisteredVehicleRule } from './rules/unregistered-vehicle.js';
import { unsafeDrivingRuleSp } from './rules/unsafe-driving.js';
import { vehicleOfAnotherCompanyRule } from './rules/vehicle-of-another-company.js';
import { vehicleTooOldRuleSp } from './rules/vehicle-too-old.js';

/** Every rule of the sp-fretamento pack, in evaluation order. */
export const spRules: readonly PackRule<SpConfig, SpContext>[] = [
  boardingAtRegularStopRule,
  overCapacityRuleSp,
  inspectionExpiredRule,
  unregisteredVehicleRule,
  vehicleTooOldRuleSp,
  tachographMissingRule,
  tachographMismatchRule,
  unsafeDrivingRuleSp,
  routeDeviationRule,
  regularServicePatternRule,
  noContractInForceRule,
  doorOpenMovingRule,
  driverNotAuthorizedRule,
  vehicleOfAnotherCompanyRule,
];

/** The sp-fretamento pack (São Paulo State metropolitan charter buses) with its configuration. */
export function createSpFretamentoPack(input: SpConfigInput = {}): PackRuntime {
  const config = spConfigSchema.parse(input);
  assertTimeZone(config.timeZone);
  const rules = enabledRules(spRules, config.disabledRules);
  const catalogue = new RuleCatalogue('sp-fretamento', config, spRules);
  /** One charter-trip signal for the pack, filled for each sample (`trackCharterTripInto`): rules read it during their step only. */
  const tripSignal: Writable<CharterTripSignal> = {
    trip: { id: '', startMs: 0, lastMs: 0, lastMovingMs: 0 },
    ended: null,
  };
  return {
    pack: 'sp-fretamento',
    timeZone: config.timeZone,
    general: config.general,
    holidays: {
      state: config.holidays.state,
      countedTypes: config.holidays.countedTypes,
      fixed: config.holidays.fixed,
    },
    ruleIds: rules.map((r) => r.id),
    legalBasis: (id) => catalogue.legalBasis(id),
    description: (id) => catalogue.description(id),
    penalty: (id, variant) => catalogue.penalty(id, variant),
    newVehicle() {
      let dwell = initialDwellState;
      let trip: CharterTrip | null = null;
      const states = initRuleStates(rules);
      return {
        step(facts) {
          const d = detectDwell(dwell, facts, config.boardingAtStop);
          dwell = d.state;
          trip = trackCharterTripInto(trip, facts, config.regularService.tripBreakStillS, tripSignal);
          // The engine's facts object, reused from sample to sample: extended in place with the
          // pack's signals rather than copied (its shape settles after the first sample).
          const ctx = facts as Writable<SpContext>;
          ctx.dwell = d.signal;
          ctx.charterTrip = tripSignal;
          return stepRules(rules, states, ctx, config);
        },
        close(info) {
          dwell = initialDwellState;
          trip = null;
          return closeRules(rules, states, info, config);
        },
        peekClose: (info) => peekCloseRules(rules, states, info, config),
        // The trip as a snapshot, and restored as the tracker's own: the tracker updates it in place.
        exportState: () => ({
          detectors: { dwell, trip: copyCharterTrip(trip) },
          slots: exportRuleStates(rules, states),
        }),
        importState(state) {
          dwell = (state.detectors.dwell as typeof dwell | undefined) ?? initialDwellState;
          trip = copyCharterTrip((state.detectors.trip as CharterTrip | null | undefined) ?? null);
          importRuleStates(rules, states, state.slots);
        },
      };
    },
    flush: () => [],
    vehicleGone: () => [],
    peekGone: () => [],
    dispatch: () => [],
    assessRecidivism: (violation, priors) => assessSpRecidivism(violation, priors, config.recidivism, config.timeZone),
  };
}

export { type SpConfig, type SpConfigInput, spConfigSchema };
