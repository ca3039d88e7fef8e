import type { ExpressionSpecification, GeoJSONSource, Map as MapLibreMap } from 'maplibre-gl';
import type { FleetStore } from './fleet-store.js';
import { statusStyles, type VehicleStatus, vehicleStatuses } from './vehicle-status.js';

export const vehicleSourceId = 'vehicles';
export const vehicleCircleLayerId = 'vehicles-circle';
const selectedLayerId = 'vehicles-selected';

type VehicleFeature = GeoJSON.Feature<GeoJSON.Point, { id: string; status: string; rank: number }>;

/** `circle-sort-key`: later statuses in `vehicleStatuses` are drawn above earlier ones. */
const drawRank = Object.fromEntries(vehicleStatuses.map((status, index) => [status, index])) as Record<
  VehicleStatus,
  number
>;

// `match` takes a variable number of label/output pairs, which no tuple type can describe; hence the casts.
const statusColor = [
  'match',
  ['get', 'status'],
  ...vehicleStatuses.flatMap((status) => [status, statusStyles[status].color]),
  statusStyles.offline.color,
] as unknown as ExpressionSpecification;

const statusRadius = [
  'match',
  ['get', 'status'],
  ...vehicleStatuses.flatMap((status) => [status, statusStyles[status].radiusPx]),
  statusStyles.offline.radiusPx,
] as unknown as ExpressionSpecification;

/**
 * Markers shrink at country scale so thousands of them stay readable, and grow at street scale.
 * Rings drawn around markers (selection, violations) use the same curve with a larger `scale`.
 */
export function radiusByZoom(scale: number): ExpressionSpecification {
  return [
    'interpolate',
    ['linear'],
    ['zoom'],
    4,
    ['*', statusRadius, 0.6 * scale],
    11,
    ['*', statusRadius, scale],
    16,
    ['*', statusRadius, 1.6 * scale],
  ];
}

/**
 * Draws the fleet as one GeoJSON source and WebGL circle layers: DOM markers cost a layout per
 * vehicle per update and do not hold up past a few hundred vehicles.
 */
export class VehicleLayer {
  private framePending = false;

  constructor(
    private readonly map: MapLibreMap,
    private readonly store: FleetStore,
  ) {
    map.addSource(vehicleSourceId, { type: 'geojson', data: this.collection() });
    map.addLayer({
      id: selectedLayerId,
      type: 'circle',
      source: vehicleSourceId,
      filter: ['==', ['get', 'id'], ''],
      paint: {
        'circle-radius': radiusByZoom(2.2),
        'circle-color': statusColor,
        'circle-opacity': 0.25,
        'circle-stroke-color': statusColor,
        'circle-stroke-width': 2,
      },
    });
    map.addLayer({
      id: vehicleCircleLayerId,
      type: 'circle',
      source: vehicleSourceId,
      layout: { 'circle-sort-key': ['get', 'rank'] },
      paint: {
        'circle-radius': radiusByZoom(1),
        'circle-color': statusColor,
        'circle-stroke-color': '#ffffff',
        'circle-stroke-width': ['interpolate', ['linear'], ['zoom'], 4, 0.75, 11, 1.5],
      },
    });
    store.subscribe(() => this.scheduleRedraw());
  }

  /** Rings the chosen vehicle so it can be followed while it moves; null clears the ring. */
  select(vehicleId: string | null): void {
    this.map.setFilter(selectedLayerId, ['==', ['get', 'id'], vehicleId ?? '']);
  }

  /**
   * Fades the fleet while a violation's evidence is on the map, so its trace and samples are not
   * confused with live markers; the markers stay visible to keep the live context.
   */
  setDimmed(dimmed: boolean): void {
    const opacity = dimmed ? 0.35 : 1;
    this.map.setPaintProperty(vehicleCircleLayerId, 'circle-opacity', opacity);
    this.map.setPaintProperty(vehicleCircleLayerId, 'circle-stroke-opacity', opacity);
  }

  /** Pushes bursts of updates to the GPU at most once per frame; a hidden tab defers it until shown. */
  private scheduleRedraw(): void {
    if (this.framePending) return;
    this.framePending = true;
    requestAnimationFrame(() => {
      this.framePending = false;
      this.map.getSource<GeoJSONSource>(vehicleSourceId)?.setData(this.collection());
    });
  }

  private collection(): GeoJSON.FeatureCollection<GeoJSON.Point> {
    const features: VehicleFeature[] = [];
    for (const vehicle of this.store.all()) {
      if (!vehicle.position) continue;
      features.push({
        type: 'Feature',
        geometry: { type: 'Point', coordinates: [vehicle.position.lon, vehicle.position.lat] },
        properties: { id: vehicle.id, status: vehicle.status, rank: drawRank[vehicle.status] },
      });
    }
    return { type: 'FeatureCollection', features };
  }
}
