import { localTime } from '../local-time.js';
import type { CityDef } from '../network/types.js';
import type { Random } from '../random.js';

/** How much slower than free flow traffic runs during the city's rush hours. */
export const RUSH_HOUR_SPEED_FACTOR = 0.72;

/**
 * The traffic a vehicle meets: a slowly wandering factor on its free-flow speed (mean-reverting,
 * so a stretch of slow traffic lasts minutes, not seconds), lower during the city's rush hours.
 */
export class TrafficConditions {
  private factor: number;

  constructor(
    private readonly city: CityDef,
    private readonly rng: Random,
  ) {
    this.factor = rng.range(0.8, 1);
  }

  /** Advance the wandering part by dtS seconds and return the factor for time `nowMs`. */
  step(nowMs: number, dtS: number): number {
    const meanReversionPerS = 1 / 180;
    const volatility = 0.02;
    this.factor += (0.92 - this.factor) * meanReversionPerS * dtS + volatility * Math.sqrt(dtS) * this.rng.normal();
    this.factor = Math.min(1, Math.max(0.55, this.factor));
    return this.factor * (this.isRushHour(nowMs) ? RUSH_HOUR_SPEED_FACTOR : 1);
  }

  isRushHour(nowMs: number): boolean {
    const hour = localTime(nowMs, this.city.timeZone).hour;
    return this.city.rushHours.some(([from, to]) => hour >= from && hour < to);
  }
}
