import { type LatLon, offsetM } from '../geo.js';
import type { Random } from '../random.js';

export interface GpsFix {
  lat: number;
  lon: number;
  accuracyM: number;
}

/**
 * A GPS receiver's error: a few metres, correlated over tens of seconds (multipath and
 * satellite geometry change slowly), never beyond the accuracy the receiver reports. Modelled as
 * a first-order autoregressive offset, with the reported accuracy itself drifting between 3 and
 * 15 m.
 */
export class GpsReceiver {
  private north = 0;
  private east = 0;
  private accuracy: number;
  private lastMs: number | undefined;

  constructor(private readonly rng: Random) {
    this.accuracy = rng.range(3.5, 8);
  }

  fix(truth: LatLon, nowMs: number): GpsFix {
    const dtS = this.lastMs === undefined ? 60 : Math.max(0, (nowMs - this.lastMs) / 1000);
    this.lastMs = nowMs;
    const rho = Math.exp(-dtS / 30);
    const innovation = Math.sqrt(1 - rho * rho);
    this.accuracy = clamp(this.accuracy + this.rng.normal(0, 0.6) * Math.sqrt(Math.min(dtS, 30) / 2), 3, 15);
    const sd = this.accuracy / 2.5;
    this.north = rho * this.north + innovation * this.rng.normal(0, sd);
    this.east = rho * this.east + innovation * this.rng.normal(0, sd);
    const r = Math.hypot(this.north, this.east);
    if (r > this.accuracy) {
      this.north *= this.accuracy / r;
      this.east *= this.accuracy / r;
    }
    const p = offsetM(truth, this.north, this.east);
    return { lat: round(p.lat, 6), lon: round(p.lon, 6), accuracyM: round(this.accuracy, 1) };
  }
}

function clamp(v: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, v));
}

export function round(v: number, decimals: number): number {
  const f = 10 ** decimals;
  return Math.round(v * f) / f;
}
