import type { Pack } from '@vigia/core';
import { type LatLon, offsetM } from '../geo.js';

/**
 * Where each scenario plays: a spot 4 km north of the previous one, from a base outside each
 * city (no real stop, stand or zone of an installed registry nearby), so the scenarios of a run
 * never meet each other's stops, stands or routes.
 */
const BASES: Record<Pack, LatLon> = {
  'df-taxi': { lat: -15.3, lon: -47.0 },
  'belem-taxi': { lat: -1.2, lon: -48.6 },
  'sp-fretamento': { lat: -24.2, lon: -46.0 },
};

export function site(pack: Pack, index: number): LatLon {
  return offsetM(BASES[pack], index * 4000, 0);
}

/** A GeoJSON square of `halfSideM` around a point. */
export function square(center: LatLon, halfSideM: number): { type: 'Polygon'; coordinates: number[][][] } {
  const c = [
    offsetM(center, -halfSideM, -halfSideM),
    offsetM(center, -halfSideM, halfSideM),
    offsetM(center, halfSideM, halfSideM),
    offsetM(center, halfSideM, -halfSideM),
  ];
  const ring = [...c, c[0] as LatLon].map((p) => [Number(p.lon.toFixed(7)), Number(p.lat.toFixed(7))]);
  return { type: 'Polygon', coordinates: [ring] };
}
