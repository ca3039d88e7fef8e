/**
 * Distances on the Earth's surface. Haversine on the mean radius is within 0.5 % of the
 * ellipsoid everywhere — centimetres at the tens of metres the rules measure — and GPS error
 * (3–10 m) dominates anyway. Short-range geometry (point to segment, point in polygon) uses a
 * local equirectangular projection around the query point, exact to well under a metre over a
 * few kilometres.
 */

export const EARTH_RADIUS_M = 6_371_008.8;
const DEG = Math.PI / 180;
/** Metres per degree of latitude on the mean sphere. */
export const METRES_PER_DEGREE = EARTH_RADIUS_M * DEG;

export function haversineM(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const dLat = (lat2 - lat1) * DEG;
  const dLon = (lon2 - lon1) * DEG;
  const s = Math.sin(dLat / 2) ** 2 + Math.cos(lat1 * DEG) * Math.cos(lat2 * DEG) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(s)));
}

/** Degrees of latitude and longitude spanned by `radiusM` around `lat` (for index queries). */
export function degreesAround(lat: number, radiusM: number): { dLat: number; dLon: number } {
  const dLat = radiusM / METRES_PER_DEGREE;
  const cos = Math.max(Math.cos(lat * DEG), 1e-6);
  return { dLat, dLon: dLat / cos };
}

/** A local planar frame centred on (lat0, lon0), in metres: x east, y north. */
export interface LocalFrame {
  readonly lat0: number;
  readonly lon0: number;
  readonly kx: number;
  readonly ky: number;
}

export function localFrame(lat0: number, lon0: number): LocalFrame {
  return { lat0, lon0, kx: METRES_PER_DEGREE * Math.cos(lat0 * DEG), ky: METRES_PER_DEGREE };
}

export function toLocal(frame: LocalFrame, lat: number, lon: number): [number, number] {
  return [(lon - frame.lon0) * frame.kx, (lat - frame.lat0) * frame.ky];
}

/** Distance in metres from the origin of the frame to segment a–b (given in the frame). */
export function originToSegmentM(ax: number, ay: number, bx: number, by: number): number {
  const dx = bx - ax;
  const dy = by - ay;
  const len2 = dx * dx + dy * dy;
  let t = len2 > 0 ? -(ax * dx + ay * dy) / len2 : 0;
  if (t < 0) t = 0;
  else if (t > 1) t = 1;
  const px = ax + t * dx;
  const py = ay + t * dy;
  return Math.sqrt(px * px + py * py);
}

/** Distance in metres from point (lat, lon) to the segment between two [lon, lat] positions. */
export function pointToSegmentM(
  lat: number,
  lon: number,
  a: readonly [number, number, ...number[]],
  b: readonly [number, number, ...number[]],
): number {
  const frame = localFrame(lat, lon);
  const [ax, ay] = toLocal(frame, a[1], a[0]);
  const [bx, by] = toLocal(frame, b[1], b[0]);
  return originToSegmentM(ax, ay, bx, by);
}
