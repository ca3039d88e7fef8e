import type { LngLatBoundsLike, LngLatLike } from 'maplibre-gl';

/** West, south, east, north in degrees. */
export type Bbox = readonly [number, number, number, number];

export interface ServedArea {
  id: 'brasilia' | 'belem' | 'sao-paulo';
  label: string;
  center: LngLatLike;
  /** Zoom at which the urban area fills a typical screen. */
  zoom: number;
  /** The urban area the packs serve: the map names the area when its centre is in here. */
  bounds: Bbox;
  /**
   * Where the built-in map has streets for the area (public/basemap/SOURCES.md), or null where it
   * has none. Elsewhere in the area the map says that streets are missing rather than show a void.
   */
  streetCoverage: Bbox | null;
}

export const servedAreas: readonly ServedArea[] = [
  {
    id: 'brasilia',
    label: 'Brasília',
    center: [-47.88, -15.79],
    zoom: 11,
    bounds: [-48.3, -16.06, -47.3, -15.5],
    streetCoverage: [-47.93837, -15.84528, -47.85206, -15.7774],
  },
  {
    id: 'belem',
    label: 'Belém',
    center: [-48.49, -1.42],
    zoom: 11.5,
    bounds: [-48.65, -1.6, -48.25, -1.0],
    streetCoverage: null,
  },
  {
    id: 'sao-paulo',
    label: 'São Paulo',
    center: [-46.63, -23.55],
    zoom: 10,
    bounds: [-47.2, -24.06, -45.7, -23.15],
    streetCoverage: [-46.67093, -23.58253, -46.5969, -23.51676],
  },
];

/** Encloses Belém (north), the Distrito Federal and the São Paulo metropolitan region (south). */
export const allAreasBounds: LngLatBoundsLike = [
  [-48.7, -24.2],
  [-45.6, -1.0],
];

export function bboxContains(bbox: Bbox, lon: number, lat: number): boolean {
  return lon >= bbox[0] && lon <= bbox[2] && lat >= bbox[1] && lat <= bbox[3];
}

export function bboxesIntersect(a: Bbox, b: Bbox): boolean {
  return a[0] <= b[2] && b[0] <= a[2] && a[1] <= b[3] && b[1] <= a[3];
}

/** The served area the point lies in, if any. */
export function servedAreaAt(lon: number, lat: number): ServedArea | null {
  return servedAreas.find((area) => bboxContains(area.bounds, lon, lat)) ?? null;
}
