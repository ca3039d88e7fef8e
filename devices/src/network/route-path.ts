import { bearingDeg, distanceM, headingDifferenceDeg, interpolate, type LatLon } from '../geo.js';
import type { RoadClass } from './types.js';

export interface PathPosition {
  point: LatLon;
  headingDeg: number;
  /** Index of the segment [i, i+1] the position lies on. */
  segment: number;
}

/**
 * A drivable path: vertices with cumulative distances, the road class of each segment, and
 * which vertices are junctions (where lights and give-way stops happen). Built by routing on
 * the graph; everything that moves a vehicle reads positions from here.
 */
export class RoutePath {
  readonly cumM: readonly number[];
  readonly lengthM: number;
  private readonly bearings: readonly number[];

  constructor(
    readonly points: readonly LatLon[],
    /** Road class of segment i (points[i] → points[i+1]). */
    readonly segmentClass: readonly RoadClass[],
    /** Road id of segment i. */
    readonly segmentRoad: readonly string[],
    /** Whether vertex i is a junction of the network. */
    readonly junction: readonly boolean[],
    /** The graph node of each vertex, when the path was routed on a graph. */
    readonly nodeIds?: readonly number[],
  ) {
    if (points.length < 2) throw new Error('A route needs at least two points');
    if (segmentClass.length !== points.length - 1 || segmentRoad.length !== points.length - 1) {
      throw new Error('A route needs one road class and road id per segment');
    }
    const cum = [0];
    const bearings: number[] = [];
    for (let i = 1; i < points.length; i++) {
      const a = points[i - 1] as LatLon;
      const b = points[i] as LatLon;
      cum.push((cum[i - 1] as number) + distanceM(a, b));
      bearings.push(bearingDeg(a, b));
    }
    this.cumM = cum;
    this.bearings = bearings;
    this.lengthM = cum[cum.length - 1] as number;
  }

  get start(): LatLon {
    return this.points[0] as LatLon;
  }

  get end(): LatLon {
    return this.points[this.points.length - 1] as LatLon;
  }

  get endNode(): number | undefined {
    return this.nodeIds?.[this.nodeIds.length - 1];
  }

  /** The segment containing distance s (binary search; the last segment for s ≥ length). */
  segmentAt(s: number): number {
    let lo = 0;
    let hi = this.points.length - 2;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((this.cumM[mid] as number) <= s) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  locate(s: number): PathPosition {
    const clamped = Math.max(0, Math.min(this.lengthM, s));
    const i = this.segmentAt(clamped);
    const a = this.points[i] as LatLon;
    const b = this.points[i + 1] as LatLon;
    const segLen = (this.cumM[i + 1] as number) - (this.cumM[i] as number);
    const f = segLen > 0 ? (clamped - (this.cumM[i] as number)) / segLen : 0;
    return { point: interpolate(a, b, f), headingDeg: this.bearings[i] as number, segment: i };
  }

  /** Change of direction at vertex i (0 at the ends), degrees. */
  turnAt(i: number): number {
    if (i <= 0 || i >= this.points.length - 1) return 0;
    return headingDifferenceDeg(this.bearings[i - 1] as number, this.bearings[i] as number);
  }

  /** The part of the path up to vertex `lastVertex` (inclusive). */
  truncate(lastVertex: number): RoutePath {
    const n = Math.max(1, Math.min(lastVertex, this.points.length - 1));
    return new RoutePath(
      this.points.slice(0, n + 1),
      this.segmentClass.slice(0, n),
      this.segmentRoad.slice(0, n),
      this.junction.slice(0, n + 1),
      this.nodeIds?.slice(0, n + 1),
    );
  }
}
