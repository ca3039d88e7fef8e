import type { GeoJSONSource, Map as MapLibreMap } from 'maplibre-gl';
import type { MeterState, Tariff } from '../api-types.js';
import { classifyVehicle, statusStyles } from '../vehicle-status.js';
import type { TrackPoint } from './replay-data.js';

const trailSourceId = 'replay-trail';
const markerSourceId = 'replay-markers';
export const replayTrailLayerId = 'replay-trail-line';
export const replayMarkerLayerId = 'replay-markers-circle';

/** The trail's and markers' colour: the live map's colour for the same meter state, so the legend reads both. */
export function meterColour(meterState: MeterState | null, tariff: Tariff | null): string {
  // Judged as a reporting taxi: the colour says the meter, not whether the vehicle is online now.
  return statusStyles[classifyVehicle({ serviceType: 'taxi', meterState, tariff, lastSeenMs: 0 }, 0, Infinity)].color;
}

/**
 * The trail of each line as runs of one meter state (a LineString each, coloured by it); a run
 * starts at the last point of the previous one, so the trail has no breaks within a line.
 */
export function trailFeatures(points: readonly TrackPoint[]): GeoJSON.Feature<GeoJSON.LineString>[] {
  const features: GeoJSON.Feature<GeoJSON.LineString>[] = [];
  let run: [number, number][] = [];
  let colour = '';
  let line = -1;
  const flush = () => {
    if (run.length >= 2)
      features.push({ type: 'Feature', geometry: { type: 'LineString', coordinates: run }, properties: { colour } });
  };
  for (const p of points) {
    const c = meterColour(p.meterState, p.tariff);
    if (p.line !== line) {
      flush();
      run = [[p.lon, p.lat]];
      line = p.line;
      colour = c;
    } else if (c !== colour) {
      run.push([p.lon, p.lat]);
      flush();
      run = [[p.lon, p.lat]];
      colour = c;
    } else run.push([p.lon, p.lat]);
  }
  flush();
  return features;
}

export interface ReplayMarker {
  id: string;
  lon: number;
  lat: number;
  colour: string;
  /** The vehicle's position is its last before a gap: drawn hollow. */
  stale: boolean;
}

const empty: GeoJSON.FeatureCollection = { type: 'FeatureCollection', features: [] };

/** The replay's map layers: the trail under a marker per vehicle, above the live fleet. */
export class ReplayMapLayer {
  constructor(private readonly map: MapLibreMap) {
    map.addSource(trailSourceId, { type: 'geojson', data: empty });
    map.addSource(markerSourceId, { type: 'geojson', data: empty });
    map.addLayer({
      id: replayTrailLayerId,
      type: 'line',
      source: trailSourceId,
      layout: { 'line-cap': 'round', 'line-join': 'round' },
      paint: { 'line-color': ['get', 'colour'], 'line-width': 4, 'line-opacity': 0.9 },
    });
    map.addLayer({
      id: replayMarkerLayerId,
      type: 'circle',
      source: markerSourceId,
      paint: {
        'circle-radius': 8,
        'circle-color': ['case', ['get', 'stale'], '#ffffff', ['get', 'colour']],
        'circle-stroke-color': ['case', ['get', 'stale'], ['get', 'colour'], '#111827'],
        'circle-stroke-width': 2.5,
      },
    });
  }

  showTrail(points: readonly TrackPoint[]): void {
    this.map
      .getSource<GeoJSONSource>(trailSourceId)
      ?.setData({ type: 'FeatureCollection', features: trailFeatures(points) });
  }

  showMarkers(markers: readonly ReplayMarker[]): void {
    this.map.getSource<GeoJSONSource>(markerSourceId)?.setData({
      type: 'FeatureCollection',
      features: markers.map((m) => ({
        type: 'Feature',
        geometry: { type: 'Point', coordinates: [m.lon, m.lat] },
        properties: { id: m.id, colour: m.colour, stale: m.stale },
      })),
    });
  }

  clear(): void {
    this.map.getSource<GeoJSONSource>(trailSourceId)?.setData(empty);
    this.map.getSource<GeoJSONSource>(markerSourceId)?.setData(empty);
  }
}
