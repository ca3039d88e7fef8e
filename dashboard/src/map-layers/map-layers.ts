import type { Map as MapLibreMap } from 'maplibre-gl';
import type { ApiClient } from '../api-client.js';
import { LayerControl, storedLayerVisibility } from './layer-control.js';
import './map-layers.css';
import { ReferenceLayers } from './reference-layers.js';
import { StreetCoverageNotice } from './street-coverage.js';

export interface MapLayers {
  reference: ReferenceLayers;
  coverage: StreetCoverageNotice;
}

/**
 * What the dashboard adds over the base map once its style has loaded: the registry's places as
 * switchable layers (with their switcher) and the notice where the built-in map has no streets.
 * Call `reference.load()` once a client is signed in.
 */
export function mountMapLayers(
  map: MapLibreMap,
  options: {
    client: () => ApiClient | null;
    onError: (message: string) => void;
    vehicleAt: (point: { x: number; y: number }) => boolean;
  },
): MapLayers {
  const reference = new ReferenceLayers({ map, visible: storedLayerVisibility(), ...options });
  map.addControl(new LayerControl(reference), 'top-right');
  return { reference, coverage: new StreetCoverageNotice(map) };
}
