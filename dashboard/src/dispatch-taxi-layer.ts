import { type GeoJSONSource, type Map as MapLibreMap, Marker } from 'maplibre-gl';
import { element } from './dom.js';
import type { LatLon } from './field-geo.js';

/**
 * The dispatch console on the map: where each waiting booking is picked up, the selected one (or
 * the pickup being typed) drawn large, and a straight line from it to each free taxi listed beside
 * it, with a ring around those taxis and, when the server ranked them, a label with the taxi's
 * number for the keys and its estimated arrival (HTML markers: the style needs no glyphs). Colours apart from the fleet's, the evidence's and the field
 * view's, so the browser test can find them on the canvas.
 */
export const dispatchColors = {
  pickup: '#db2777',
  line: '#0891b2',
} as const;

const sourceId = 'dispatch';

export interface DispatchScene {
  /** Pickups of the other open bookings. */
  pickups: readonly LatLon[];
  /** The selected booking's pickup, or the one being typed in the form. */
  focus: LatLon | null;
  /** Free taxis listed for the focus: a line to each and a ring, and the label when given. */
  taxis: readonly (LatLon & { id: string; label?: string })[];
}

export class DispatchTaxiLayer {
  private labels: Marker[] = [];
  /** The labels drawn, so a redraw with the same ones (every fleet tick) leaves them be. */
  private labelKey = '';

  constructor(private readonly map: MapLibreMap) {
    map.addSource(sourceId, { type: 'geojson', data: { type: 'FeatureCollection', features: [] } });
    map.addLayer({
      id: 'dispatch-lines',
      type: 'line',
      source: sourceId,
      filter: ['==', ['geometry-type'], 'LineString'],
      layout: { 'line-cap': 'round' },
      paint: { 'line-color': dispatchColors.line, 'line-width': 2.5, 'line-dasharray': [2, 1.5] },
    });
    map.addLayer({
      id: 'dispatch-taxi-rings',
      type: 'circle',
      source: sourceId,
      filter: ['==', ['get', 'part'], 'taxi'],
      paint: {
        'circle-radius': 11,
        'circle-color': 'rgba(0,0,0,0)',
        'circle-stroke-color': dispatchColors.line,
        'circle-stroke-width': 3,
      },
    });
    map.addLayer({
      id: 'dispatch-pickups',
      type: 'circle',
      source: sourceId,
      filter: ['==', ['get', 'part'], 'pickup'],
      paint: {
        'circle-radius': ['case', ['get', 'focus'], 10, 6],
        'circle-color': dispatchColors.pickup,
        'circle-stroke-color': '#ffffff',
        'circle-stroke-width': ['case', ['get', 'focus'], 3, 1.5],
      },
    });
  }

  show(scene: DispatchScene): void {
    const source = this.map.getSource<GeoJSONSource>(sourceId);
    if (!source) return;
    const point = (at: LatLon) => ({ type: 'Point' as const, coordinates: [at.lon, at.lat] });
    const features: GeoJSON.Feature[] = [];
    const focus = scene.focus;
    if (focus) {
      for (const taxi of scene.taxis) {
        features.push({
          type: 'Feature',
          properties: { part: 'line' },
          geometry: {
            type: 'LineString',
            coordinates: [
              [focus.lon, focus.lat],
              [taxi.lon, taxi.lat],
            ],
          },
        });
        features.push({ type: 'Feature', properties: { part: 'taxi', id: taxi.id }, geometry: point(taxi) });
      }
    }
    for (const pickup of scene.pickups) {
      features.push({ type: 'Feature', properties: { part: 'pickup', focus: false }, geometry: point(pickup) });
    }
    if (focus) features.push({ type: 'Feature', properties: { part: 'pickup', focus: true }, geometry: point(focus) });
    source.setData({ type: 'FeatureCollection', features });
    this.showLabels(focus ? scene.taxis : []);
  }

  private showLabels(taxis: DispatchScene['taxis']): void {
    const labelled = taxis.filter((taxi) => taxi.label !== undefined);
    const key = JSON.stringify(labelled.map((taxi) => [taxi.id, taxi.label, taxi.lat, taxi.lon]));
    if (key === this.labelKey) return;
    this.labelKey = key;
    for (const marker of this.labels) marker.remove();
    this.labels = labelled.map((taxi) => {
      const node = element('div', 'dispatch-taxi-label', taxi.label);
      node.dataset.vehicleId = taxi.id;
      return new Marker({ element: node, anchor: 'left', offset: [14, 0] })
        .setLngLat([taxi.lon, taxi.lat])
        .addTo(this.map);
    });
  }
}
