import { localFrame, originToSegmentM, toLocal } from './distance.js';
import type { AreaGeometry, Position } from './geojson.js';

/**
 * Point-in-area tests for the registry's polygons (stands, zones, airport). Ray casting in
 * longitude/latitude is exact for the small polygons involved (none crosses the antimeridian or a
 * pole). A point on the boundary counts as inside half the time by the usual crossing rule; the
 * margins the rules apply are far larger than that ambiguity.
 */

function inRing(lat: number, lon: number, ring: readonly Position[]): boolean {
  let inside = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const pi = ring[i];
    const pj = ring[j];
    if (!pi || !pj) continue;
    const yi = pi[1];
    const yj = pj[1];
    if (yi > lat !== yj > lat) {
      const xCross = ((pj[0] - pi[0]) * (lat - yi)) / (yj - yi) + pi[0];
      if (lon < xCross) inside = !inside;
    }
  }
  return inside;
}

function inPolygon(lat: number, lon: number, rings: readonly (readonly Position[])[]): boolean {
  const [outer, ...holes] = rings;
  if (!outer || !inRing(lat, lon, outer)) return false;
  return !holes.some((hole) => inRing(lat, lon, hole));
}

export function pointInArea(lat: number, lon: number, geometry: AreaGeometry): boolean {
  if (geometry.type === 'Polygon') return inPolygon(lat, lon, geometry.coordinates);
  return geometry.coordinates.some((polygon) => inPolygon(lat, lon, polygon));
}

/** Metres from the point to the area: 0 inside, else the distance to the nearest edge. */
export function distanceToAreaM(lat: number, lon: number, geometry: AreaGeometry): number {
  if (pointInArea(lat, lon, geometry)) return 0;
  const frame = localFrame(lat, lon);
  const polygons = geometry.type === 'Polygon' ? [geometry.coordinates] : geometry.coordinates;
  let best = Number.POSITIVE_INFINITY;
  for (const polygon of polygons) {
    for (const ring of polygon) {
      for (let i = 1; i < ring.length; i++) {
        const a = ring[i - 1];
        const b = ring[i];
        if (!a || !b) continue;
        const [ax, ay] = toLocal(frame, a[1], a[0]);
        const [bx, by] = toLocal(frame, b[1], b[0]);
        const d = originToSegmentM(ax, ay, bx, by);
        if (d < best) best = d;
      }
    }
  }
  return best;
}
