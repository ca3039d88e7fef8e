import { degreesAround, localFrame, originToSegmentM, toLocal } from '@vigia/rules';
import Flatbush from 'flatbush';
import { z } from 'zod';

/**
 * The streets of the offline map as a spatial index of their segments, for the reverse lookup
 * (README.md). Each LineString is cut into its segments (two consecutive vertices); a packed
 * R-tree (flatbush) holds the segments' boxes in degrees. A lookup takes the segments whose box
 * meets a box of the search radius around the point and measures the true distance from the
 * point to each segment in a local equirectangular frame (rules' geo helpers: exact to well
 * under a metre over the few hundred metres involved). Pure: no I/O.
 */

export const roadClasses = ['motorway', 'trunk', 'primary', 'secondary', 'tertiary', 'residential', 'unknown'] as const;
export type RoadClass = (typeof roadClasses)[number];

type LonLat = readonly [number, number, ...number[]];

function isLonLat(value: unknown): value is LonLat {
  if (!Array.isArray(value) || value.length < 2) return false;
  const [lon, lat] = value as unknown[];
  return typeof lon === 'number' && typeof lat === 'number' && Math.abs(lon) <= 180 && Math.abs(lat) <= 90;
}

/**
 * A LineString's positions, checked in one loop: the files hold some 60 000 positions, and a zod
 * tuple schema per position tripled the start-up's read time for the same verdict.
 */
const lineCoordinatesSchema = z.custom<LonLat[]>(
  (value) => Array.isArray(value) && value.length >= 2 && value.every(isLonLat),
  'expected at least two [lon, lat] positions',
);

/** One `*-roads.geojson` file (dashboard/public/basemap/SOURCES.md): LineStrings with a name and a class. */
export const roadsFileSchema = z.object({
  type: z.literal('FeatureCollection'),
  features: z.array(
    z.object({
      type: z.literal('Feature'),
      properties: z.object({ name: z.string().min(1).nullable(), class: z.enum(roadClasses) }),
      geometry: z.object({ type: z.literal('LineString'), coordinates: lineCoordinatesSchema }),
    }),
  ),
});
export type RoadFeature = z.infer<typeof roadsFileSchema>['features'][number];

export interface StreetHit {
  /** null: the street has no name in the data (all of Brasília's). */
  name: string | null;
  class: RoadClass;
  /** Metres from the point to the segment, to the decimetre. */
  distanceM: number;
}

/**
 * An unnamed segment nearest the point yields to a named one at most this much farther away.
 * Unnamed lines are mostly service ways, parking aisles and footpaths beside a street; a
 * named street within GPS error (3–10 m) plus half a carriageway of the nearest line is the
 * street the point is on, for all a reader can tell.
 */
export const NAMED_STREET_SLACK_M = 15;

interface Line {
  readonly name: string | null;
  readonly class: RoadClass;
}

export class StreetIndex {
  private readonly lines: Line[] = [];
  /** Per segment: ax, ay, bx, by as [lon, lat] degrees. */
  private readonly coords: Float64Array;
  /** Per segment: the index of its line in `lines`. */
  private readonly lineOf: Uint32Array;
  private readonly tree: Flatbush | null;

  constructor(features: readonly RoadFeature[]) {
    let segments = 0;
    for (const f of features) segments += f.geometry.coordinates.length - 1;
    this.coords = new Float64Array(segments * 4);
    this.lineOf = new Uint32Array(segments);
    this.tree = segments > 0 ? new Flatbush(segments) : null;
    let s = 0;
    for (const f of features) {
      const line = this.lines.push({ name: f.properties.name, class: f.properties.class }) - 1;
      const points = f.geometry.coordinates;
      for (let i = 1; i < points.length; i++) {
        const a = points[i - 1];
        const b = points[i];
        if (!a || !b) continue;
        const o = s * 4;
        this.coords[o] = a[0];
        this.coords[o + 1] = a[1];
        this.coords[o + 2] = b[0];
        this.coords[o + 3] = b[1];
        this.lineOf[s] = line;
        this.tree?.add(Math.min(a[0], b[0]), Math.min(a[1], b[1]), Math.max(a[0], b[0]), Math.max(a[1], b[1]));
        s++;
      }
    }
    this.tree?.finish();
  }

  get segmentCount(): number {
    return this.lineOf.length;
  }

  /**
   * The street at the point: the nearest segment within `maxM` metres, unless it is unnamed and
   * a named one lies at most NAMED_STREET_SLACK_M farther (still within `maxM`). Null when no
   * segment is that near (outside the data, or off every street).
   */
  nearest(lat: number, lon: number, maxM: number): StreetHit | null {
    if (!this.tree) return null;
    const { dLat, dLon } = degreesAround(lat, maxM);
    const frame = localFrame(lat, lon);
    let best = -1;
    let bestM = Number.POSITIVE_INFINITY;
    let bestNamed = -1;
    let bestNamedM = Number.POSITIVE_INFINITY;
    for (const s of this.tree.search(lon - dLon, lat - dLat, lon + dLon, lat + dLat)) {
      const o = s * 4;
      const [ax, ay] = toLocal(frame, this.coords[o + 1] ?? 0, this.coords[o] ?? 0);
      const [bx, by] = toLocal(frame, this.coords[o + 3] ?? 0, this.coords[o + 2] ?? 0);
      const d = originToSegmentM(ax, ay, bx, by);
      if (d > maxM) continue;
      const line = this.lineOf[s] ?? 0;
      if (d < bestM) {
        bestM = d;
        best = line;
      }
      if (d < bestNamedM && this.lines[line]?.name != null) {
        bestNamedM = d;
        bestNamed = line;
      }
    }
    if (best < 0) return null;
    const chosen = bestNamed >= 0 && bestNamedM - bestM <= NAMED_STREET_SLACK_M ? bestNamed : best;
    const line = this.lines[chosen];
    if (!line) return null;
    const distanceM = chosen === best ? bestM : bestNamedM;
    return { name: line.name, class: line.class, distanceM: Math.round(distanceM * 10) / 10 };
  }
}
