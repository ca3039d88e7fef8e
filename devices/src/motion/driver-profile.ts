import { ROAD_CLASS_PROFILES } from '../network/road-classes.js';
import { type RoadClass, roadClasses } from '../network/types.js';
import type { Random } from '../random.js';

/** How one driver in one vehicle drives: preferred speeds per road class, acceleration, braking. */
export interface DriverProfile {
  /** Free-flow cruising speed per road class, m/s. */
  cruiseMs: Readonly<Record<RoadClass, number>>;
  /** Comfortable acceleration, m/s². */
  accelMs2: number;
  /** Comfortable deceleration (positive), m/s². */
  brakeMs2: number;
  /** Share of the traffic's slowdown the driver accepts (default 1); a reckless one weaves through. */
  trafficYield?: number;
}

export interface VehicleDynamics {
  /** Typical acceleration range, m/s². */
  accelMs2: readonly [number, number];
  /** Typical comfortable braking range, m/s². */
  brakeMs2: readonly [number, number];
  /** Top speed this kind of vehicle is driven at, km/h. */
  maxKmh: number;
}

export const CAR_DYNAMICS: VehicleDynamics = { accelMs2: [1.6, 2.4], brakeMs2: [2.0, 2.8], maxKmh: 78 };
/** Charter coaches are governed and heavy: gentle acceleration, earlier braking. */
export const COACH_DYNAMICS: VehicleDynamics = { accelMs2: [0.7, 1.0], brakeMs2: [1.2, 1.6], maxKmh: 75 };

export function randomDriverProfile(rng: Random, dynamics: VehicleDynamics): DriverProfile {
  // One temperament per driver: a brisk driver is brisk on every road.
  const temperament = rng.next();
  const cruise = {} as Record<RoadClass, number>;
  for (const rc of roadClasses) {
    const p = ROAD_CLASS_PROFILES[rc];
    const kmh = p.cruiseKmh[0] + (p.cruiseKmh[1] - p.cruiseKmh[0]) * temperament;
    cruise[rc] = Math.min(kmh, p.maxKmh, dynamics.maxKmh) / 3.6;
  }
  return {
    cruiseMs: cruise,
    accelMs2: rng.range(dynamics.accelMs2[0], dynamics.accelMs2[1]),
    brakeMs2: rng.range(dynamics.brakeMs2[0], dynamics.brakeMs2[1]),
  };
}

/**
 * A lead foot (a vice, see fleet/vices.ts): the same driver, cruising at `factor` times the most an
 * honest driver does on each road class — above the unsafe-driving limits on the faster roads —
 * and taking only half of the traffic's slowdown. Bends, lights and jams still stop him.
 */
export function recklessProfile(base: DriverProfile, factor: number): DriverProfile {
  const cruise = {} as Record<RoadClass, number>;
  for (const rc of roadClasses) cruise[rc] = (ROAD_CLASS_PROFILES[rc].maxKmh * factor) / 3.6;
  return { ...base, cruiseMs: cruise, trafficYield: 0.5 };
}
