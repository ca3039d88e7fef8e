/**
 * The little geodesy the simulator needs, on a sphere. At city scale (segments of a few hundred
 * metres) the spherical error is far below GPS noise, so no ellipsoid library is warranted.
 */

export interface LatLon {
  lat: number;
  lon: number;
}

export const EARTH_RADIUS_M = 6_371_008.8;
const toRad = (deg: number): number => (deg * Math.PI) / 180;
const toDeg = (rad: number): number => (rad * 180) / Math.PI;

/** Great-circle distance in metres (haversine). */
export function distanceM(a: LatLon, b: LatLon): number {
  const dLat = toRad(b.lat - a.lat);
  const dLon = toRad(b.lon - a.lon);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(toRad(a.lat)) * Math.cos(toRad(b.lat)) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** Initial bearing from a to b, degrees clockwise from north in [0, 360). */
export function bearingDeg(a: LatLon, b: LatLon): number {
  const φ1 = toRad(a.lat);
  const φ2 = toRad(b.lat);
  const Δλ = toRad(b.lon - a.lon);
  const y = Math.sin(Δλ) * Math.cos(φ2);
  const x = Math.cos(φ1) * Math.sin(φ2) - Math.sin(φ1) * Math.cos(φ2) * Math.cos(Δλ);
  return normaliseDeg(toDeg(Math.atan2(y, x)));
}

export function normaliseDeg(deg: number): number {
  const d = deg % 360;
  return d < 0 ? d + 360 : d;
}

/** Smallest absolute difference between two headings, in [0, 180]. */
export function headingDifferenceDeg(a: number, b: number): number {
  const d = Math.abs(normaliseDeg(a) - normaliseDeg(b));
  return d > 180 ? 360 - d : d;
}

/** Linear interpolation between two nearby points (exact enough for segments under a few km). */
export function interpolate(a: LatLon, b: LatLon, fraction: number): LatLon {
  return { lat: a.lat + (b.lat - a.lat) * fraction, lon: a.lon + (b.lon - a.lon) * fraction };
}

/** The point `metres` away from `origin` towards `bearing` (flat-earth offset, for GPS noise and the like). */
export function offsetM(origin: LatLon, northM: number, eastM: number): LatLon {
  const dLat = toDeg(northM / EARTH_RADIUS_M);
  const dLon = toDeg(eastM / (EARTH_RADIUS_M * Math.cos(toRad(origin.lat))));
  return { lat: origin.lat + dLat, lon: origin.lon + dLon };
}

/**
 * Distance from p to the segment ab, in metres, on a local equirectangular projection centred on
 * p (accurate to well under a metre for segments of a few hundred metres).
 */
export function distanceToSegmentM(p: LatLon, a: LatLon, b: LatLon): number {
  const kLat = (Math.PI / 180) * EARTH_RADIUS_M;
  const kLon = kLat * Math.cos(toRad(p.lat));
  const ax = (a.lon - p.lon) * kLon;
  const ay = (a.lat - p.lat) * kLat;
  const bx = (b.lon - p.lon) * kLon;
  const by = (b.lat - p.lat) * kLat;
  const dx = bx - ax;
  const dy = by - ay;
  const len2 = dx * dx + dy * dy;
  const t = len2 === 0 ? 0 : Math.max(0, Math.min(1, -(ax * dx + ay * dy) / len2));
  return Math.hypot(ax + t * dx, ay + t * dy);
}

/** Distance from p to the nearest point of a polyline, in metres. */
export function distanceToPolylineM(p: LatLon, line: readonly LatLon[]): number {
  if (line.length === 1 && line[0]) return distanceM(p, line[0]);
  let best = Number.POSITIVE_INFINITY;
  for (let i = 1; i < line.length; i++) {
    const a = line[i - 1];
    const b = line[i];
    if (a && b) best = Math.min(best, distanceToSegmentM(p, a, b));
  }
  return best;
}
