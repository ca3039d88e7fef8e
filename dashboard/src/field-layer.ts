import type { GeoJSONSource, Map as MapLibreMap } from 'maplibre-gl';
import type { LatLon } from './field-geo.js';

/**
 * The field view on the map: the agent's reference point and a straight "go there" line to each
 * listed vehicle (the open one drawn bold). Straight lines, not routes: there is no routing server,
 * and the list says so. Colours apart from the fleet's, the evidence's and the base map's, so the
 * browser test can find them on the canvas.
 */
export const fieldColors = {
  agent: '#1e3a8a',
  line: '#f59e0b',
} as const;

const sourceId = 'field';

export interface FieldLine {
  id: string;
  to: LatLon;
  selected: boolean;
}

export class FieldLayer {
  constructor(private readonly map: MapLibreMap) {
    map.addSource(sourceId, { type: 'geojson', data: { type: 'FeatureCollection', features: [] } });
    map.addLayer({
      id: 'field-lines',
      type: 'line',
      source: sourceId,
      filter: ['==', ['geometry-type'], 'LineString'],
      layout: { 'line-cap': 'round' },
      paint: {
        'line-color': fieldColors.line,
        'line-width': ['case', ['get', 'selected'], 5, 2.5],
      },
    });
    map.addLayer({
      id: 'field-agent',
      type: 'circle',
      source: sourceId,
      filter: ['==', ['geometry-type'], 'Point'],
      paint: {
        'circle-radius': 9,
        'circle-color': fieldColors.agent,
        'circle-stroke-color': '#ffffff',
        'circle-stroke-width': 3,
      },
    });
  }

  show(agent: LatLon | null, lines: readonly FieldLine[]): void {
    const source = this.map.getSource<GeoJSONSource>(sourceId);
    if (!source) return;
    if (agent === null) {
      source.setData({ type: 'FeatureCollection', features: [] });
      return;
    }
    source.setData({
      type: 'FeatureCollection',
      features: [
        // Lines first: the agent's point is drawn by its own layer above them anyway.
        ...lines.map((line) => ({
          type: 'Feature' as const,
          properties: { id: line.id, selected: line.selected },
          geometry: {
            type: 'LineString' as const,
            coordinates: [
              [agent.lon, agent.lat],
              [line.to.lon, line.to.lat],
            ],
          },
        })),
        { type: 'Feature', properties: {}, geometry: { type: 'Point', coordinates: [agent.lon, agent.lat] } },
      ],
    });
  }
}
