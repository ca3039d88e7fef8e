import type { Pack } from '@vigia/core';
import type { PackRule, RuleMeta } from '../../engine/rule.js';
import type { SampleFacts } from '../../engine/sample-facts.js';
import type { RuleId } from '../../violations/rule-ids.js';
import { round } from './round.js';
import { sustainedRule } from './sustained-rule.js';

interface Extra {
  readonly capacity: number;
  readonly maxPassengers: number;
}

/**
 * Passengers on board above the permitted number, sustained for `minMovingSeconds` of driving
 * (stops at lights do not end the run; they just do not count towards the seconds). Reads the
 * lower bound of the door-gated passenger count (`SampleFacts.occupancy.passengersAtLeast`: a
 * count change while the doors stayed closed is sensor noise; with no door reading a rise must
 * hold `general.occupancySettleS`, while a drop counts at once).
 * Needs the passenger count and the registered capacity; without either the rule does not fire.
 */
export function overCapacityRule<C, X extends SampleFacts>(spec: {
  id: RuleId;
  pack: Pack;
  legalBasis: readonly string[];
  description: { pt: string; en: string };
  penalty: RuleMeta<C>['penalty'];
  /** The permitted number of passengers for the vehicle (e.g. min(capacity, 6) in DF). */
  permitted(capacity: number, config: C): number;
  minMovingSeconds(config: C): number;
  capacityBasis: string;
}): PackRule<C, X> {
  return sustainedRule<Extra, C, X>({
    ...spec,
    observe(ctx, config) {
      // The door-gated count, its lower bound: neither a flicker with the doors closed nor a change
      // still settling puts anyone on board.
      const passengers = ctx.occupancy.passengersAtLeast;
      if (passengers === null || !ctx.vehicle) return null;
      const capacity = spec.permitted(ctx.vehicle.capacity, config);
      if (passengers <= capacity) return null;
      return {
        suspected: false,
        key: String(capacity),
        fold: (prev) => ({ capacity, maxPassengers: Math.max(prev?.maxPassengers ?? 0, passengers) }),
      };
    },
    qualifies: (run, config) => run.movingS >= spec.minMovingSeconds(config),
    measured: (run, config) => ({
      passengersMax: run.extra.maxPassengers,
      permittedPassengers: run.extra.capacity,
      excess: run.extra.maxPassengers - run.extra.capacity,
      capacityBasis: spec.capacityBasis,
      movingSeconds: round(run.movingS),
      durationSeconds: round(run.durationS),
      distanceM: Math.round(run.distanceM),
      minMovingSeconds: spec.minMovingSeconds(config),
    }),
  });
}
