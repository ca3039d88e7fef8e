/**
 * Validity of the areas the registry stores (zones, stand polygons), beyond what the GeoJSON
 * schema checks (closed rings of at least four positions, lon/lat in range). The rules test
 * "inside" with ray casting, which gives nonsense for a ring that crosses itself: a bow-tie zone
 * would put half the city inside and half outside, so such a geometry is refused at the edge.
 *
 * Valid here is the OGC simple-features notion, a little stricter: each ring is simple (no
 * segment crosses or touches a non-adjacent one, no spike going back over itself), has three or
 * more distinct positions; the rings of a polygon never meet (a hole touching the outer ring at a
 * point is refused too); every hole lies inside the outer ring and outside the other holes; the
 * polygons of a MultiPolygon never meet and none lies inside another's area (an island in
 * another polygon's hole is fine). Positions are planar lon/lat: the areas are a few km across.
 */

type Pos = readonly number[];
type Ring = readonly Pos[];
type Polygon = readonly Ring[];

/** Geometries larger than this are refused: validation sorts and sweeps every segment. */
export const MAX_AREA_POSITIONS = 50_000;

interface Segment {
  /** Polygon index, ring index within it, segment index within the ring. */
  polygon: number;
  ring: number;
  index: number;
  /** Segments in the ring, to know which are adjacent (the last touches the first). */
  ringSegments: number;
  a: Pos;
  b: Pos;
  minX: number;
  maxX: number;
  minY: number;
  maxY: number;
}

const x = (p: Pos) => p[0] as number;
const y = (p: Pos) => p[1] as number;

/** Sign of the turn a → b → c: > 0 left, < 0 right, 0 collinear. */
function orient(a: Pos, b: Pos, c: Pos): number {
  const v = (x(b) - x(a)) * (y(c) - y(a)) - (y(b) - y(a)) * (x(c) - x(a));
  return v > 0 ? 1 : v < 0 ? -1 : 0;
}

/** c is on segment ab, given that a, b, c are collinear. */
function onSegment(a: Pos, b: Pos, c: Pos): boolean {
  return (
    Math.min(x(a), x(b)) <= x(c) &&
    x(c) <= Math.max(x(a), x(b)) &&
    Math.min(y(a), y(b)) <= y(c) &&
    y(c) <= Math.max(y(a), y(b))
  );
}

/** Closed segments ab and cd share at least one point (crossing, touching or overlapping). */
export function segmentsIntersect(a: Pos, b: Pos, c: Pos, d: Pos): boolean {
  const o1 = orient(a, b, c);
  const o2 = orient(a, b, d);
  const o3 = orient(c, d, a);
  const o4 = orient(c, d, b);
  if (o1 !== o2 && o3 !== o4) return true;
  return (
    (o1 === 0 && onSegment(a, b, c)) ||
    (o2 === 0 && onSegment(a, b, d)) ||
    (o3 === 0 && onSegment(c, d, a)) ||
    (o4 === 0 && onSegment(c, d, b))
  );
}

/** Strictly inside the ring (even-odd ray casting); points on the boundary are caught as touching. */
export function insideRing(p: Pos, ring: Ring): boolean {
  let inside = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const pi = ring[i] as Pos;
    const pj = ring[j] as Pos;
    if (y(pi) > y(p) !== y(pj) > y(p) && x(p) < ((x(pj) - x(pi)) * (y(p) - y(pi))) / (y(pj) - y(pi)) + x(pi)) {
      inside = !inside;
    }
  }
  return inside;
}

/** The ring without consecutive repeated positions (allowed by OGC; they make empty segments). */
function dedupe(ring: Ring): Pos[] {
  const out: Pos[] = [];
  for (const p of ring) {
    const last = out.at(-1);
    if (!last || x(last) !== x(p) || y(last) !== y(p)) out.push(p);
  }
  return out;
}

const ringName = (polygons: number, polygon: number, ring: number) =>
  `${ring === 0 ? 'outer ring' : `hole ${ring}`}${polygons > 1 ? ` of polygon ${polygon}` : ''}`;

/** The first problem of an area, in words, or null if it is valid. Expects schema-valid input. */
export function areaProblem(
  geometry:
    | { type: 'Polygon'; coordinates: Polygon }
    | {
        type: 'MultiPolygon';
        coordinates: readonly Polygon[];
      },
): string | null {
  const polygons: Polygon[] = geometry.type === 'Polygon' ? [geometry.coordinates] : [...geometry.coordinates];
  let positions = 0;
  for (const polygon of polygons) for (const ring of polygon) positions += ring.length;
  if (positions > MAX_AREA_POSITIONS) return `more than ${MAX_AREA_POSITIONS} positions`;
  // zod runs this refinement after some schema issues too (a ring too short, a latitude out of
  // range); a position that is not two finite numbers is the schema's to report, not ours.
  for (const polygon of polygons) {
    for (const ring of polygon) {
      if (
        !Array.isArray(ring) ||
        ring.some((p) => !Array.isArray(p) || !Number.isFinite(p[0]) || !Number.isFinite(p[1]))
      ) {
        return null;
      }
    }
  }

  const rings: Pos[][][] = polygons.map((polygon) => polygon.map(dedupe));
  const segments: Segment[] = [];
  for (const [pi, polygon] of rings.entries()) {
    for (const [ri, ring] of polygon.entries()) {
      const name = ringName(rings.length, pi, ri);
      // Three distinct positions and the closing one; fewer has no area.
      if (ring.length < 4) return `${name} has fewer than 3 distinct positions`;
      const ringSegments = ring.length - 1;
      for (let i = 0; i < ringSegments; i++) {
        const a = ring[i] as Pos;
        const b = ring[i + 1] as Pos;
        // A spike: the ring goes back along the segment it came by.
        const c = ring[i + 2 > ringSegments ? 1 : i + 2] as Pos;
        if (orient(a, b, c) === 0 && (x(b) - x(a)) * (x(c) - x(b)) + (y(b) - y(a)) * (y(c) - y(b)) < 0) {
          return `${name} turns back on itself at position ${i + 1}`;
        }
        segments.push({
          polygon: pi,
          ring: ri,
          index: i,
          ringSegments,
          a,
          b,
          minX: Math.min(x(a), x(b)),
          maxX: Math.max(x(a), x(b)),
          minY: Math.min(y(a), y(b)),
          maxY: Math.max(y(a), y(b)),
        });
      }
    }
  }

  // Sweep along x: only segments whose x-ranges overlap are compared.
  segments.sort((s, t) => s.minX - t.minX);
  for (let i = 0; i < segments.length; i++) {
    const s = segments[i] as Segment;
    for (let j = i + 1; j < segments.length; j++) {
      const t = segments[j] as Segment;
      if (t.minX > s.maxX) break;
      if (t.maxY < s.minY || t.minY > s.maxY) continue;
      const sameRing = s.polygon === t.polygon && s.ring === t.ring;
      if (sameRing) {
        const gap = Math.abs(s.index - t.index);
        // Adjacent segments share their common position by construction (spikes are checked above).
        if (gap === 1 || gap === s.ringSegments - 1) continue;
      }
      if (!segmentsIntersect(s.a, s.b, t.a, t.b)) continue;
      const first = s.polygon < t.polygon || (s.polygon === t.polygon && s.ring <= t.ring) ? s : t;
      const second = first === s ? t : s;
      if (sameRing) {
        const [lo, hi] = [Math.min(s.index, t.index), Math.max(s.index, t.index)];
        return `${ringName(rings.length, s.polygon, s.ring)} crosses itself (segments ${lo} and ${hi})`;
      }
      if (first.polygon === second.polygon) {
        return `${ringName(rings.length, first.polygon, first.ring)} and ${ringName(rings.length, second.polygon, second.ring)} meet`;
      }
      return `polygons ${first.polygon} and ${second.polygon} meet`;
    }
  }

  // No two rings meet, so one position of a ring tells on which side of another the whole ring is.
  for (const [pi, polygon] of rings.entries()) {
    const outer = polygon[0] as Pos[];
    for (let hi = 1; hi < polygon.length; hi++) {
      const hole = polygon[hi] as Pos[];
      const probe = hole[0] as Pos;
      if (!insideRing(probe, outer)) return `${ringName(rings.length, pi, hi)} lies outside the outer ring`;
      for (let other = 1; other < polygon.length; other++) {
        if (other !== hi && insideRing(probe, polygon[other] as Pos[])) {
          return `${ringName(rings.length, pi, hi)} lies inside ${ringName(rings.length, pi, other)}`;
        }
      }
    }
  }
  for (const [pi, polygon] of rings.entries()) {
    const probe = (polygon[0] as Pos[])[0] as Pos;
    for (const [qi, other] of rings.entries()) {
      if (qi === pi) continue;
      const inOuter = insideRing(probe, other[0] as Pos[]);
      const inHole = other.slice(1).some((hole) => insideRing(probe, hole));
      if (inOuter && !inHole) return `polygon ${pi} lies inside polygon ${qi}`;
    }
  }
  return null;
}
