import { haversineM } from '@vigia/rules';
import { latLngToCell } from 'h3-js';
import type { LatLon } from './dispatch-ports.js';
import type { SpeedSquareRow, TripRow } from './eta-store.js';

/**
 * The travel-time model learnt from the product's own telemetry (no routing server): the speed of
 * moving taxis per H3 cell and hour of the week, and the detour factor (road distance over
 * straight-line distance) of their hired trips. Pure: the history estimator feeds it rows from
 * eta-store.ts. See ETA.md.
 */

/** H3 resolution 8: cells of about 0.74 km² (edge ≈ 460 m), a few city blocks, a few thousand per city. */
export const H3_RESOLUTION = 8;
/** Fine grid the SQL rounds positions to before they are folded into H3 cells (≈ 110 m). */
export const GRID_DEG = 0.001;
/** Step along the straight segment at which the cell crossed is looked up: several per cell. */
const STEP_M = 100;
const SLOTS = 168;
/** A trip shorter than this in a straight line says little about the roads (round the block, GPS noise). */
const MIN_TRIP_STRAIGHT_M = 500;
/** A ratio above this is a trip that went somewhere and came back, not a detour. */
const MAX_TRIP_RATIO = 4;
/** The measured factor is kept within this range whatever the data says. */
export const DETOUR_RANGE = { min: 1, max: 2 } as const;
/** The ratios of the most recent trips this many are kept for the median. */
const MAX_TRIPS_KEPT = 5_000;

/** Monday 00:00–01:00 UTC = 0 … Sunday 23:00 UTC = 167 (as eta-store.ts groups). */
export function hourOfWeekUtc(at: Date): number {
  return ((at.getUTCDay() + 6) % 7) * 24 + at.getUTCHours();
}

export interface TravelTimeModelOptions {
  /** DISPATCH_FALLBACK_SPEED_KMH: a cell with too few samples is crossed at this speed. */
  readonly fallbackSpeedKmh: number;
  /** DISPATCH_DETOUR_FACTOR: used until enough trips are measured. */
  readonly defaultDetourFactor: number;
  /** DISPATCH_HISTORY_MIN_SAMPLES: weighted samples a cell (and hour) needs before its speed is believed. */
  readonly minSamples: number;
  /** Measured trips needed before their median replaces the default detour factor (default 20). */
  readonly minTrips?: number;
}

/** Per cell: [weight, weight × speed] for each hour of the week, then the same per hour of day, then in all. */
const CELL_LENGTH = 2 * (SLOTS + 24 + 1);
const HOD = 2 * SLOTS;
const ALL = 2 * (SLOTS + 24);

export class TravelTimeModel {
  private readonly cells = new Map<string, Float64Array>();
  private readonly ratios: number[] = [];
  private ratioNext = 0;
  private detour: number;
  private readonly minTrips: number;

  constructor(private readonly opts: TravelTimeModelOptions) {
    this.detour = opts.defaultDetourFactor;
    this.minTrips = opts.minTrips ?? 20;
  }

  /** Ages everything learnt so far (exponential forgetting: recent weeks count most). */
  decay(factor: number): void {
    if (factor >= 1) return;
    for (const a of this.cells.values()) for (let i = 0; i < a.length; i++) a[i] = (a[i] as number) * factor;
  }

  /** Folds SQL grid squares into their H3 cells (by the square's centre). */
  addSpeeds(rows: readonly SpeedSquareRow[], gridDeg = GRID_DEG): void {
    const cellOfSquare = new Map<string, string>();
    for (const r of rows) {
      if (!(r.w > 0) || r.how < 0 || r.how >= SLOTS) continue;
      const squareKey = `${r.la},${r.lo}`;
      let cell = cellOfSquare.get(squareKey);
      if (cell === undefined) {
        cell = latLngToCell(r.la * gridDeg, r.lo * gridDeg, H3_RESOLUTION);
        cellOfSquare.set(squareKey, cell);
      }
      let a = this.cells.get(cell);
      if (!a) {
        a = new Float64Array(CELL_LENGTH);
        this.cells.set(cell, a);
      }
      for (const i of [2 * r.how, HOD + 2 * (r.how % 24), ALL]) {
        a[i] = (a[i] as number) + r.w;
        a[i + 1] = (a[i + 1] as number) + r.ws;
      }
    }
  }

  /** Takes measured trips into the detour factor (their median, over the most recent ones). */
  addTrips(trips: readonly TripRow[]): void {
    for (const t of trips) {
      const straight = haversineM(t.lat0, t.lon0, t.lat1, t.lon1);
      if (straight < MIN_TRIP_STRAIGHT_M || !(t.pathM > 0)) continue;
      // GPS chords cut corners: a path a little shorter than the line is a straight road.
      const ratio = Math.max(1, t.pathM / straight);
      if (ratio > MAX_TRIP_RATIO) continue;
      if (this.ratios.length < MAX_TRIPS_KEPT) this.ratios.push(ratio);
      else this.ratios[this.ratioNext] = ratio;
      this.ratioNext = (this.ratioNext + 1) % MAX_TRIPS_KEPT;
    }
    if (this.ratios.length >= this.minTrips && this.ratios.length > 0) {
      const sorted = [...this.ratios].sort((a, b) => a - b);
      const mid = sorted.length >> 1;
      const median =
        sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
      this.detour = Math.min(DETOUR_RANGE.max, Math.max(DETOUR_RANGE.min, median));
    }
  }

  detourFactor(): number {
    return this.detour;
  }

  /** What the model knows, for logs and the benchmark. */
  summary(): { cells: number; trips: number; detourFactor: number } {
    return { cells: this.cells.size, trips: this.ratios.length, detourFactor: this.detour };
  }

  /**
   * The learnt speed of moving taxis in `cell` at hour of week `how` (km/h): that hour if it has
   * enough samples, else that hour of the day on any day, else the cell at any time; undefined
   * when the cell has too few samples at all.
   */
  speedKmh(cell: string, how: number): number | undefined {
    const a = this.cells.get(cell);
    if (!a) return undefined;
    for (const i of [2 * how, HOD + 2 * (how % 24), ALL]) {
      const w = a[i] as number;
      if (w >= this.opts.minSamples) return (a[i + 1] as number) / w;
    }
    return undefined;
  }

  /**
   * Seconds from `origin` to `destination` departing at `at`: the straight segment walked in
   * steps, each at the speed of the cell it lies in (time = Σ length / speed, the harmonic
   * integration of speed along the way), times the detour factor.
   */
  travelTimeS(origin: LatLon, destination: LatLon, at: Date): number {
    const distanceM = haversineM(origin.lat, origin.lon, destination.lat, destination.lon);
    if (distanceM < 1) return 0;
    const how = hourOfWeekUtc(at);
    const steps = Math.max(1, Math.ceil(distanceM / STEP_M));
    const stepM = distanceM / steps;
    const fallback = this.opts.fallbackSpeedKmh;
    let seconds = 0;
    let lastCell = '';
    let lastSpeed = fallback;
    for (let i = 0; i < steps; i++) {
      // Linear in degrees: over the few kilometres of a pickup, indistinguishable from the great circle.
      const f = (i + 0.5) / steps;
      const cell = latLngToCell(
        origin.lat + (destination.lat - origin.lat) * f,
        origin.lon + (destination.lon - origin.lon) * f,
        H3_RESOLUTION,
      );
      if (cell !== lastCell) {
        lastCell = cell;
        lastSpeed = this.speedKmh(cell, how) ?? fallback;
      }
      seconds += stepM / (lastSpeed / 3.6);
    }
    return seconds * this.detour;
  }
}
