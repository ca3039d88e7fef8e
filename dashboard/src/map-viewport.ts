import type { Map as MapLibreMap } from 'maplibre-gl';
import type { Viewport } from './api-types.js';

/**
 * The area the map shows, as the live feed's `viewport` message takes it: clamped to the globe
 * (a world view at low zoom reaches past ±180°), the zoom within 0–24.
 */
export function viewportOf(map: MapLibreMap): Viewport {
  const bounds = map.getBounds();
  const west = Math.max(-180, Math.min(180, bounds.getWest()));
  const east = Math.max(west, Math.min(180, bounds.getEast()));
  const south = Math.max(-90, Math.min(90, bounds.getSouth()));
  const north = Math.max(south, Math.min(90, bounds.getNorth()));
  return { bbox: [west, south, east, north], zoom: Math.max(0, Math.min(24, map.getZoom())) };
}

/**
 * Tells `onChange` the area the map shows now and after every move, zoom or resize, once the
 * movement has ended (a pan is one message, not one per frame).
 */
export function followMapViewport(map: MapLibreMap, onChange: (viewport: Viewport) => void): void {
  const tell = () => onChange(viewportOf(map));
  map.on('moveend', tell);
  map.on('resize', tell);
  tell();
}
