import type { Pack } from '@vigia/core';
import { defineRule, type Finding, keepState, noFindings, type PackRule, type RuleMeta } from '../../engine/rule.js';
import { haversineM } from '../../geo/distance.js';
import type { RuleId } from '../../violations/rule-ids.js';
import { round } from './round.js';
import type { TaxiContext } from './taxi-context.js';

export interface DetourSettings {
  readonly maxRatio: number;
  readonly minExtraMetres: number;
  readonly minStraightLineMetres: number;
}

/**
 * A trip much longer than the way from its start to its end: distance driven above
 * `maxRatio` × the straight line *and* more than `minExtraMetres` longer. The straight line is a
 * stand-in for the shortest road route (a routing engine may replace it), and the passenger may
 * have asked for the longer way, so it is always `suspected`, for review. Trips shorter than
 * `minStraightLineMetres` end to end (round trips) and incomplete trips are not judged.
 */
export function detourRule<C>(spec: {
  id: RuleId;
  pack: Pack;
  legalBasis: readonly string[];
  description: { pt: string; en: string };
  penalty: RuleMeta<C>['penalty'];
  settings(config: C): DetourSettings;
}): PackRule<C, TaxiContext> {
  return defineRule<null, C, TaxiContext>({
    id: spec.id,
    pack: spec.pack,
    legalBasis: spec.legalBasis,
    description: spec.description,
    penalty: spec.penalty,
    init: () => null,
    step(state, ctx, config) {
      const t = ctx.trip.ended;
      if (!t || t.incomplete) return keepState;
      const s = spec.settings(config);
      const straight = haversineM(t.startLat, t.startLon, t.lastLat, t.lastLon);
      if (straight < s.minStraightLineMetres) return keepState;
      const ratio = t.distanceM / straight;
      if (ratio <= s.maxRatio || t.distanceM - straight <= s.minExtraMetres) return keepState;
      const finding: Finding = {
        ruleId: spec.id,
        eventId: `${t.id}:${t.startMs}`,
        phase: 'final',
        startedAt: t.startMs,
        endedAt: t.lastMs,
        lat: t.startLat,
        lon: t.startLon,
        place: null,
        measured: {
          tripId: t.id,
          tripMetres: Math.round(t.distanceM),
          straightLineMetres: Math.round(straight),
          ratio: round(ratio, 2),
          extraMetres: Math.round(t.distanceM - straight),
          maxRatio: s.maxRatio,
          minExtraMetres: s.minExtraMetres,
          reference: 'straight line between start and end',
          telemetryGaps: t.gaps,
        },
        confidence: 'suspected',
        variant: null,
        trip: { id: t.id, startedAt: t.startMs, endedAt: t.lastMs },
      };
      return { state, findings: [finding] };
    },
    close: (state) => ({ state, findings: noFindings }),
  });
}
