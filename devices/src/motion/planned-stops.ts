import { ROAD_CLASS_PROFILES } from '../network/road-classes.js';
import type { RoutePath } from '../network/route-path.js';
import type { Random } from '../random.js';
import type { TimedAction } from '../vehicles/dwell-activity.js';

export type StopKind = 'light' | 'halt';

export interface PlannedStop {
  /** Distance along the route where the vehicle comes to a standstill, metres. */
  s: number;
  durationS: number;
  kind: StopKind;
  /** What happens while the vehicle stands there (a door opening, people boarding), by seconds since it stopped. */
  actions?: readonly TimedAction[];
}

/** Vehicles stop this far before the junction vertex (the stop line). */
const STOP_LINE_M = 6;

/**
 * Where a vehicle will have to stop on a route: red lights and give-way at junctions, mid-block
 * lights on central avenues, and now and then a halt in a jam. Drawn once when the route is
 * taken, so the drive itself is deterministic.
 */
export function planStops(path: RoutePath, rng: Random): PlannedStop[] {
  const stops: PlannedStop[] = [];
  const last = path.points.length - 1;
  for (let i = 1; i < last; i++) {
    const profile = ROAD_CLASS_PROFILES[path.segmentClass[i - 1] ?? 'arterial'];
    const p = path.junction[i] ? profile.stopAtJunction : profile.stopAtVertex;
    if (p > 0 && rng.chance(p)) {
      const s = (path.cumM[i] as number) - STOP_LINE_M;
      const durationS = path.junction[i] ? rng.range(8, 50) : rng.range(5, 25);
      stops.push({ s, durationS, kind: 'light' });
    }
  }
  // Jams: a Poisson process along the route, rate by road class of each segment.
  for (let i = 0; i < last; i++) {
    const profile = ROAD_CLASS_PROFILES[path.segmentClass[i] ?? 'arterial'];
    const lengthKm = ((path.cumM[i + 1] as number) - (path.cumM[i] as number)) / 1000;
    if (profile.haltsPerKm > 0 && rng.chance(1 - Math.exp(-profile.haltsPerKm * lengthKm))) {
      const s = (path.cumM[i] as number) + rng.range(0.2, 0.8) * lengthKm * 1000;
      stops.push({ s, durationS: rng.range(15, 90), kind: 'halt' });
    }
  }
  return stops.filter((st) => st.s > 20 && st.s < path.lengthM - 20).sort((a, b) => a.s - b.s);
}
