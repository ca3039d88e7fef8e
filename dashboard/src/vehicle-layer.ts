import type {
  ExpressionSpecification,
  GeoJSONFeatureDiff,
  GeoJSONSource,
  GeoJSONSourceDiff,
  Map as MapLibreMap,
  PointLike,
} from 'maplibre-gl';
import type { FleetStore } from './fleet-store.js';
import { statusStyles, type VehicleStatus, vehicleStatuses } from './vehicle-status.js';

export const vehicleSourceId = 'vehicles';
export const vehicleCircleLayerId = 'vehicles-circle';
/** Groups of vehicles at city scale and above (see `clustering`). */
export const vehicleClusterLayerId = 'vehicles-cluster';

/**
 * At city scale and further out, a dense patch of vehicles is drawn as one circle sized by how many
 * it holds: 20 000 markers there are a smear, and each frame would carry every one of them. Only
 * where at least `clusterMinPoints` vehicles fall within `clusterRadius` pixels, so a small fleet
 * (a cooperative, the demo) is drawn vehicle by vehicle at every zoom. Past `clusterMaxZoom`
 * (a neighbourhood) every vehicle is its own marker.
 */
const clustering = { cluster: true, clusterMaxZoom: 11, clusterRadius: 40, clusterMinPoints: 20 } as const;
const clusterColor = '#37474f';
const selectedLayerId = 'vehicles-selected';

type VehicleFeature = GeoJSON.Feature<GeoJSON.Point, { id: string; status: string; rank: number }>;

/** What the source holds of a vehicle, to patch only what changed. */
interface Drawn {
  lon: number;
  lat: number;
  status: VehicleStatus;
}

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
 * vehicle per update and do not hold up past a few hundred vehicles. The source is keyed by
 * vehicle id (`promoteId`) and patched with `updateData`: a push moves the features of the
 * vehicles it names, not a rebuild of the whole fleet's collection (20 000 features, 60 times a
 * second at worst). Only a new listing (sign-in, reconnect) sets the whole data again.
 */
export class VehicleLayer {
  private framePending = false;
  private readonly drawn = new Map<string, Drawn>();
  /** Vehicles changed since the last frame; `all`: redraw everything. */
  private changed = new Set<string>();
  private all = false;

  constructor(
    private readonly map: MapLibreMap,
    private readonly store: FleetStore,
  ) {
    map.addSource(vehicleSourceId, { type: 'geojson', data: this.collection(), promoteId: 'id', ...clustering });
    map.addLayer({
      id: vehicleClusterLayerId,
      type: 'circle',
      source: vehicleSourceId,
      filter: ['has', 'point_count'],
      paint: {
        'circle-color': clusterColor,
        'circle-opacity': 0.8,
        'circle-radius': ['step', ['get', 'point_count'], 9, 100, 13, 1000, 18, 5000, 24],
        'circle-stroke-color': '#ffffff',
        'circle-stroke-width': 1.5,
      },
    });
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
      filter: ['!', ['has', 'point_count']],
      layout: { 'circle-sort-key': ['get', 'rank'] },
      paint: {
        'circle-radius': radiusByZoom(1),
        'circle-color': statusColor,
        'circle-stroke-color': '#ffffff',
        'circle-stroke-width': ['interpolate', ['linear'], ['zoom'], 4, 0.75, 11, 1.5],
      },
    });
    store.subscribe((changed) => {
      if (changed === null) this.all = true;
      else for (const id of changed) this.changed.add(id);
      this.scheduleRedraw();
    });
  }

  /**
   * A click on a group of vehicles zooms in until it comes apart; true when there was one under
   * the click box.
   */
  handleClusterClick(box: [PointLike, PointLike]): boolean {
    const [cluster] = this.map.queryRenderedFeatures(box, { layers: [vehicleClusterLayerId] });
    const clusterId: unknown = cluster?.properties.cluster_id;
    if (!cluster || typeof clusterId !== 'number' || cluster.geometry.type !== 'Point') return false;
    const [lon = 0, lat = 0] = cluster.geometry.coordinates;
    void this.map
      .getSource<GeoJSONSource>(vehicleSourceId)
      ?.getClusterExpansionZoom(clusterId)
      .then((zoom) => this.map.easeTo({ center: [lon, lat], zoom }));
    return true;
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
      this.redraw();
    });
  }

  private redraw(): void {
    const source = this.map.getSource<GeoJSONSource>(vehicleSourceId);
    if (!source) return;
    if (this.all) {
      this.all = false;
      this.changed.clear();
      source.setData(this.collection());
      return;
    }
    const diff = this.diff();
    if (diff) source.updateData(diff);
  }

  /** The changes since the last frame as a source diff; null when nothing drawn changed. */
  private diff(): GeoJSONSourceDiff | null {
    const add: VehicleFeature[] = [];
    const update: GeoJSONFeatureDiff[] = [];
    const remove: string[] = [];
    for (const id of this.changed) {
      const vehicle = this.store.get(id);
      const before = this.drawn.get(id);
      if (!vehicle?.position) {
        if (before) {
          remove.push(id);
          this.drawn.delete(id);
        }
        continue;
      }
      const { lon, lat } = vehicle.position;
      if (!before) {
        add.push(this.feature(id, lon, lat, vehicle.status));
        continue;
      }
      const patch: GeoJSONFeatureDiff = { id };
      if (before.lon !== lon || before.lat !== lat) patch.newGeometry = { type: 'Point', coordinates: [lon, lat] };
      if (before.status !== vehicle.status) {
        patch.addOrUpdateProperties = [
          { key: 'status', value: vehicle.status },
          { key: 'rank', value: drawRank[vehicle.status] },
        ];
      }
      if (patch.newGeometry === undefined && patch.addOrUpdateProperties === undefined) continue;
      update.push(patch);
      this.drawn.set(id, { lon, lat, status: vehicle.status });
    }
    this.changed.clear();
    if (add.length === 0 && update.length === 0 && remove.length === 0) return null;
    return { add, update, remove };
  }

  /** Every placed vehicle, and what is drawn of each from now on. */
  private collection(): GeoJSON.FeatureCollection<GeoJSON.Point> {
    this.drawn.clear();
    const features: VehicleFeature[] = [];
    for (const vehicle of this.store.all()) {
      if (!vehicle.position) continue;
      features.push(this.feature(vehicle.id, vehicle.position.lon, vehicle.position.lat, vehicle.status));
    }
    return { type: 'FeatureCollection', features };
  }

  private feature(id: string, lon: number, lat: number, status: VehicleStatus): VehicleFeature {
    this.drawn.set(id, { lon, lat, status });
    return {
      type: 'Feature',
      geometry: { type: 'Point', coordinates: [lon, lat] },
      properties: { id, status, rank: drawRank[status] },
    };
  }
}
