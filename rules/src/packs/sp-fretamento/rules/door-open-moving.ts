import { fine } from '../../common/penalty-helpers.js';
import { round } from '../../common/round.js';
import { sustainedRule } from '../../common/sustained-rule.js';
import type { SpConfig } from '../config.js';
import type { SpContext } from '../context.js';

/**
 * FRET_DOOR_OPEN_MOVING — Art. 26 V: "o veículo em operação não apresentar condições de perfeita
 * segurança" (25 ORTN). A door open while the bus moves above `doorOpenMoving.minSpeedKmh`
 * (10 km/h) for ≥ `doorOpenMoving.minSeconds` (5 s), measured from the first to the last sample
 * with the door open above that speed: one sample of a bouncing door sensor measures 0 s.
 * Suspected when the speed was derived from positions (no GPS speed).
 */
interface Extra {
  readonly maxSpeedKmh: number;
}

export const doorOpenMovingRule = sustainedRule<Extra, SpConfig, SpContext>({
  id: 'FRET_DOOR_OPEN_MOVING',
  pack: 'sp-fretamento',
  legalBasis: ['Art. 26 V'],
  description: {
    pt: 'Ônibus de fretamento em movimento com a porta aberta.',
    en: 'Charter bus moving with a door open.',
  },
  penalty: () => fine('ORTN', 25, 'Art. 26 V'),
  observe(ctx, config) {
    const speed = ctx.speedKmh;
    if (ctx.sample.doorOpen !== true || speed === null || speed <= config.doorOpenMoving.minSpeedKmh) return null;
    return {
      suspected: ctx.speedDerived,
      fold: (prev) => ({ maxSpeedKmh: Math.max(prev?.maxSpeedKmh ?? 0, speed) }),
    };
  },
  qualifies: (run, config) => run.durationS >= config.doorOpenMoving.minSeconds,
  measured: (run, config) => ({
    doorOpenSeconds: round(run.durationS),
    minSeconds: config.doorOpenMoving.minSeconds,
    maxSpeedKmh: round(run.extra.maxSpeedKmh),
    minSpeedKmh: config.doorOpenMoving.minSpeedKmh,
    distanceM: Math.round(run.distanceM),
  }),
});
