import { compassPoints } from './field-messages.js';
import { formatNumber } from './legal-time.js';

/** Straight-line geometry for the field view: there is no routing server, so no road distance. */

export interface LatLon {
  lat: number;
  lon: number;
}

const earthRadiusM = 6_371_008.8;
const toRad = (deg: number) => (deg * Math.PI) / 180;

/** Great-circle (haversine) distance: within a city the error against the ellipsoid is under 0.5 %. */
export function distanceM(from: LatLon, to: LatLon): number {
  const dLat = toRad(to.lat - from.lat);
  const dLon = toRad(to.lon - from.lon);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(toRad(from.lat)) * Math.cos(toRad(to.lat)) * Math.sin(dLon / 2) ** 2;
  return 2 * earthRadiusM * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** Initial bearing from `from` to `to`, degrees clockwise from north, 0 to 360. */
export function bearingDeg(from: LatLon, to: LatLon): number {
  const φ1 = toRad(from.lat);
  const φ2 = toRad(to.lat);
  const Δλ = toRad(to.lon - from.lon);
  const y = Math.sin(Δλ) * Math.cos(φ2);
  const x = Math.cos(φ1) * Math.sin(φ2) - Math.sin(φ1) * Math.cos(φ2) * Math.cos(Δλ);
  return ((Math.atan2(y, x) * 180) / Math.PI + 360) % 360;
}

export function compassLabel(deg: number): string {
  return compassPoints[Math.round(deg / 45) % compassPoints.length] ?? 'N';
}

/** "80 m", "850 m", "1,2 km", "5 km": metres are rounded to 10, which is what a GPS fix is good for. */
export function distanceLabel(metres: number): string {
  if (metres < 1000) return `${Math.round(metres / 10) * 10} m`;
  return `${formatNumber(metres / 1000, { maximumFractionDigits: 1 })} km`;
}

export interface Ranked {
  distanceM: number;
  startedMs: number;
}

/**
 * Nearest first, but a few hundred metres are nothing on foot or in a car: within the same band
 * the newer violation comes first, because a vehicle caught a minute ago is likelier still there.
 */
export const recencyBandM = 250;

export function byDistanceThenRecency(a: Ranked, b: Ranked): number {
  const bandA = Math.floor(a.distanceM / recencyBandM);
  const bandB = Math.floor(b.distanceM / recencyBandM);
  return bandA - bandB || b.startedMs - a.startedMs || a.distanceM - b.distanceM;
}
