import type { RoadClass } from './types.js';

export interface RoadClassProfile {
  /** Free-flow cruising speeds drivers pick from on this kind of road, km/h. */
  cruiseKmh: readonly [min: number, max: number];
  /**
   * The most any simulated vehicle does here, km/h. Kept below the 80 km/h default of the
   * unsafe-driving rules (FRET_UNSAFE_DRIVING, BEL_UNSAFE_DRIVING) so that, in normal operation,
   * every violation in the demo is one a scenario put there on purpose.
   */
  maxKmh: number;
  /** Probability that a junction on this road makes the vehicle stop (red light, give way). */
  stopAtJunction: number;
  /** Probability of a mid-block stop (pedestrian light, bus ahead) at any other vertex. */
  stopAtVertex: number;
  /** Traffic halts (jam, blocked lane) per kilometre. */
  haltsPerKm: number;
}

export const ROAD_CLASS_PROFILES: Readonly<Record<RoadClass, RoadClassProfile>> = {
  highway: { cruiseKmh: [66, 76], maxKmh: 78, stopAtJunction: 0, stopAtVertex: 0, haltsPerKm: 0.01 },
  expressway: { cruiseKmh: [52, 68], maxKmh: 72, stopAtJunction: 0.05, stopAtVertex: 0, haltsPerKm: 0.03 },
  arterial: { cruiseKmh: [40, 55], maxKmh: 60, stopAtJunction: 0.4, stopAtVertex: 0.03, haltsPerKm: 0.05 },
  central: { cruiseKmh: [24, 38], maxKmh: 45, stopAtJunction: 0.5, stopAtVertex: 0.12, haltsPerKm: 0.12 },
  local: { cruiseKmh: [14, 26], maxKmh: 30, stopAtJunction: 0.3, stopAtVertex: 0, haltsPerKm: 0 },
};
