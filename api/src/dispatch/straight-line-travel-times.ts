import { haversineM } from '@vigia/rules';
import type { LatLon, TravelTimeEstimator } from './dispatch-ports.js';

export interface StraightLineOptions {
  /** DISPATCH_DETOUR_FACTOR: road distance over straight-line distance. */
  readonly detourFactor: number;
  /** DISPATCH_FALLBACK_SPEED_KMH. */
  readonly speedKmh: number;
}

/** Seconds to cover `distanceM` of straight line at `speedKmh` along roads `detourFactor` longer. */
export function straightLineSeconds(distanceM: number, opts: StraightLineOptions): number {
  return (distanceM * opts.detourFactor) / (opts.speedKmh / 3.6);
}

/**
 * The estimate when nothing better is known: straight-line distance times a detour factor at one
 * speed. What the history model falls back to before the product has stored any trips.
 */
export class StraightLineTravelTimes implements TravelTimeEstimator {
  readonly name = 'straight-line';

  constructor(private readonly opts: StraightLineOptions) {}

  async estimate(origins: readonly LatLon[], destination: LatLon): Promise<number[]> {
    return origins.map((o) =>
      straightLineSeconds(haversineM(o.lat, o.lon, destination.lat, destination.lon), this.opts),
    );
  }
}
