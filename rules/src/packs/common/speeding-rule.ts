import type { Pack } from '@vigia/core';
import type { PackRule, RuleMeta } from '../../engine/rule.js';
import type { SampleFacts } from '../../engine/sample-facts.js';
import type { RuleId } from '../../violations/rule-ids.js';
import type { PlaceRef } from '../../violations/violation.js';
import { round } from './round.js';
import { sustainedRule } from './sustained-rule.js';

interface Extra {
  readonly limitKmh: number;
  readonly maxSpeedKmh: number;
  readonly speedSum: number;
  readonly speedSamples: number;
}

export interface SpeedSettings {
  readonly limitKmh: number;
  readonly minSeconds: number;
  readonly toleranceKmh: number;
}

/**
 * Speed above the limit — the pack's, or a lower one of a speed-limit zone the vehicle is in —
 * for at least `minSeconds`. The GPS speed is measured; a speed derived from positions (device
 * sends none) makes the finding suspected.
 */
export function speedingRule<C, X extends SampleFacts>(spec: {
  id: RuleId;
  pack: Pack;
  legalBasis: readonly string[];
  description: { pt: string; en: string };
  penalty: RuleMeta<C>['penalty'];
  settings(config: C): SpeedSettings;
}): PackRule<C, X> {
  return sustainedRule<Extra, C, X>({
    ...spec,
    observe(ctx, config) {
      const speed = ctx.speedKmh;
      const settings = spec.settings(config);
      if (speed === null || speed <= settings.toleranceKmh) return null;
      let limit = settings.limitKmh;
      let place: PlaceRef | null = null;
      if (speed > settings.toleranceKmh) {
        for (const hit of ctx.registry.zonesAt(ctx.sample.lat, ctx.sample.lon, ctx.ms, ctx.pack, ['speed-limit'])) {
          const zoneLimit = hit.zone.speedLimitKmh;
          if (zoneLimit !== null && zoneLimit < limit) {
            limit = zoneLimit;
            place = { id: hit.zone.id, kind: 'zone', name: hit.zone.name };
          }
        }
      }
      if (speed <= limit + settings.toleranceKmh) return null;
      return {
        suspected: ctx.speedDerived,
        key: String(limit),
        place,
        fold: (prev) => ({
          limitKmh: limit,
          maxSpeedKmh: Math.max(prev?.maxSpeedKmh ?? 0, speed),
          speedSum: (prev?.speedSum ?? 0) + speed,
          speedSamples: (prev?.speedSamples ?? 0) + 1,
        }),
      };
    },
    qualifies: (run, config) => run.durationS >= spec.settings(config).minSeconds,
    measured: (run, config) => ({
      limitKmh: run.extra.limitKmh,
      toleranceKmh: spec.settings(config).toleranceKmh,
      maxSpeedKmh: round(run.extra.maxSpeedKmh),
      meanSpeedKmh: round(run.extra.speedSum / run.extra.speedSamples),
      durationSeconds: round(run.durationS),
      distanceM: Math.round(run.distanceM),
      minSeconds: spec.settings(config).minSeconds,
      speedSource: run.suspected ? 'derived-from-positions' : 'gps',
    }),
  });
}
