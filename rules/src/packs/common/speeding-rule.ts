import type { Pack } from '@vigia/core';
import type { PackRule, RuleMeta } from '../../engine/rule.js';
import type { SampleFacts } from '../../engine/sample-facts.js';
import type { ZoneKind } from '../../registry/records.js';
import type { RuleId } from '../../violations/rule-ids.js';
import type { PlaceRef } from '../../violations/violation.js';
import { round } from './round.js';
import { sustainedRule } from './sustained-rule.js';

interface Extra {
  readonly limitKmh: number;
  readonly thresholdKmh: number;
  readonly zoneId: string | null;
  readonly maxSpeedKmh: number;
  readonly speedSum: number;
  readonly speedSamples: number;
}

export interface SpeedSettings {
  /** The pack default where no speed-limit zone contains the position. */
  readonly limitKmh: number;
  readonly minSeconds: number;
  /** Measurement tolerance (km/h) for limits up to `tolerancePercentAboveKmh`... */
  readonly toleranceKmh: number;
  /** ...and (percent) for higher limits. */
  readonly tolerancePercent: number;
  readonly tolerancePercentAboveKmh: number;
}

export interface LimitInForce {
  readonly limitKmh: number;
  /** The speed-limit zone that sets it, or null for the pack default. */
  readonly zone: PlaceRef | null;
}

/**
 * The limit in force at a position: a `speed-limit` zone's own limit where one contains it —
 * higher or lower than the pack default — else the default. Where zones overlap, the lowest
 * of their limits applies (a school zone nested inside an arterial road's zone).
 */
export function limitInForce(ctx: SampleFacts, defaultKmh: number): LimitInForce {
  let best: LimitInForce | null = null;
  for (const hit of ctx.registry.zonesAt(ctx.sample.lat, ctx.sample.lon, ctx.ms, ctx.pack, speedLimitZones)) {
    const zoneLimit = hit.zone.speedLimitKmh;
    if (zoneLimit === null || (best !== null && zoneLimit >= best.limitKmh)) continue;
    best = { limitKmh: zoneLimit, zone: { id: hit.zone.id, kind: 'zone', name: hit.zone.name } };
  }
  return best ?? packDefault(defaultKmh);
}

// Asked on every moving sample: the zone kinds and the answer outside every zone are shared.
const speedLimitZones: readonly ZoneKind[] = Object.freeze(['speed-limit']);
const packDefaults = new Map<number, LimitInForce>();
function packDefault(limitKmh: number): LimitInForce {
  let answer = packDefaults.get(limitKmh);
  if (answer === undefined) {
    answer = Object.freeze({ limitKmh, zone: null });
    packDefaults.set(limitKmh, answer);
  }
  return answer;
}

/**
 * The highest speed tolerated under a limit: the limit plus `toleranceKmh` for limits up to
 * `tolerancePercentAboveKmh`, the limit plus `tolerancePercent` % above (RULES.md: "7 km/h up
 * to 100 km/h, 7 % above", as speed enforcement allows for measurement error).
 */
export function toleratedKmh(limitKmh: number, s: SpeedSettings): number {
  return limitKmh <= s.tolerancePercentAboveKmh ? limitKmh + s.toleranceKmh : limitKmh * (1 + s.tolerancePercent / 100);
}

/**
 * Speed above the limit in force plus the measurement tolerance for at least `minSeconds`
 * (RULES.md FRET_UNSAFE_DRIVING / BEL_UNSAFE_DRIVING). The GPS speed is measured; a speed
 * derived from positions (device sends none) makes the finding suspected. A change of the limit
 * (entering or leaving a zone) starts a new run.
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
      // No limit is below 0 km/h: at or under the bare tolerance nothing can be over (no zone lookup).
      if (speed === null || speed <= settings.toleranceKmh) return null;
      const inForce = limitInForce(ctx, settings.limitKmh);
      const threshold = toleratedKmh(inForce.limitKmh, settings);
      if (speed <= threshold) return null;
      const zoneId = inForce.zone?.id ?? null;
      return {
        suspected: ctx.speedDerived,
        key: `${zoneId ?? 'default'}:${inForce.limitKmh}`,
        place: inForce.zone,
        fold: (prev) => ({
          limitKmh: inForce.limitKmh,
          thresholdKmh: threshold,
          zoneId,
          maxSpeedKmh: Math.max(prev?.maxSpeedKmh ?? 0, speed),
          speedSum: (prev?.speedSum ?? 0) + speed,
          speedSamples: (prev?.speedSamples ?? 0) + 1,
        }),
      };
    },
    qualifies: (run, config) => run.durationS >= spec.settings(config).minSeconds,
    measured: (run, config) => ({
      limitKmh: run.extra.limitKmh,
      limitSource: run.extra.zoneId === null ? 'pack-default' : 'zone',
      zoneId: run.extra.zoneId,
      toleranceKmh: round(run.extra.thresholdKmh - run.extra.limitKmh),
      thresholdKmh: round(run.extra.thresholdKmh),
      maxSpeedKmh: round(run.extra.maxSpeedKmh),
      meanSpeedKmh: round(run.extra.speedSum / run.extra.speedSamples),
      durationSeconds: round(run.durationS),
      distanceM: Math.round(run.distanceM),
      minSeconds: spec.settings(config).minSeconds,
      speedSource: run.suspected ? 'derived-from-positions' : 'gps',
    }),
  });
}
