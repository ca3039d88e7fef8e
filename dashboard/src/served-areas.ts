import type { LngLatBoundsLike, LngLatLike } from 'maplibre-gl';

export interface ServedArea {
  id: 'brasilia' | 'belem' | 'sao-paulo';
  label: string;
  center: LngLatLike;
  /** Zoom at which the urban area fills a typical screen. */
  zoom: number;
}

export const servedAreas: readonly ServedArea[] = [
  { id: 'brasilia', label: 'Brasília', center: [-47.88, -15.79], zoom: 11 },
  { id: 'belem', label: 'Belém', center: [-48.49, -1.42], zoom: 11.5 },
  { id: 'sao-paulo', label: 'São Paulo', center: [-46.63, -23.55], zoom: 10 },
];

/** Encloses Belém (north), the Distrito Federal and the São Paulo metropolitan region (south). */
export const allAreasBounds: LngLatBoundsLike = [
  [-48.7, -24.2],
  [-45.6, -1.0],
];
