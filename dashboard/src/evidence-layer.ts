import {
  type ExpressionSpecification,
  type GeoJSONSource,
  LngLatBounds,
  type MapGeoJSONFeature,
  type Map as MapLibreMap,
  type PointLike,
  Popup,
} from 'maplibre-gl';
import type { EvidenceSample, Pack } from './api-types.js';
import { element, valueElement } from './dom.js';
import { meterLabel, passengersTerm, speedLabel } from './format.js';
import type { PlaceShape } from './place-geometry.js';
import { brlLabel, localTimeLabel } from './violation-format.js';
import { violationMessages } from './violation-messages.js';
import { violationColors } from './violation-style.js';

const t = violationMessages.sample;

/** What one violation's evidence puts on the map. */
export interface EvidenceView {
  pack: Pack;
  trace: GeoJSON.LineString;
  samples: readonly EvidenceSample[];
  /** Where the rule placed the violation. */
  location: { lat: number; lon: number } | null;
  place: PlaceShape | null;
}

type Role = 'place-area' | 'place-line' | 'place-point' | 'trace' | 'sample' | 'start' | 'end' | 'location';
type EvidenceFeature = GeoJSON.Feature<GeoJSON.Geometry, { role: Role; index?: number }>;

const sourceId = 'evidence';
export const evidenceSampleLayerId = 'evidence-samples';
const fitPadding = 64;
/** A violation at one spot (no trace) would otherwise be fitted at the style's maximum zoom. */
const fitMaxZoom = 17;
const hitTolerancePx = 6;

const roleIs = (...roles: Role[]): ExpressionSpecification =>
  roles.length === 1 ? ['==', ['get', 'role'], roles[0] ?? ''] : ['in', ['get', 'role'], ['literal', roles]];

/**
 * The evidence of the open violation: the telemetry trace as a line, each sample as a small point
 * (hover or click for its readings), the first and last sample, where the rule placed the event,
 * and the stop, stand, zone or itinerary involved. One GeoJSON source, layers split by `role`;
 * they sit above the fleet so the trace is never hidden under live markers.
 */
export class EvidenceLayer {
  private readonly popup: Popup;
  private view: EvidenceView | null = null;
  private pinned = false;

  constructor(private readonly map: MapLibreMap) {
    map.addSource(sourceId, { type: 'geojson', data: emptyCollection() });
    map.addLayer({
      id: 'evidence-place-fill',
      type: 'fill',
      source: sourceId,
      filter: roleIs('place-area'),
      paint: { 'fill-color': violationColors.place, 'fill-opacity': 0.14 },
    });
    map.addLayer({
      id: 'evidence-place-outline',
      type: 'line',
      source: sourceId,
      filter: roleIs('place-area', 'place-line'),
      layout: { 'line-join': 'round' },
      paint: { 'line-color': violationColors.place, 'line-width': 2, 'line-dasharray': [2, 1.5] },
    });
    map.addLayer({
      id: 'evidence-trace',
      type: 'line',
      source: sourceId,
      filter: roleIs('trace'),
      layout: { 'line-join': 'round', 'line-cap': 'round' },
      paint: { 'line-color': violationColors.trace, 'line-width': 4 },
    });
    map.addLayer({
      id: evidenceSampleLayerId,
      type: 'circle',
      source: sourceId,
      filter: roleIs('sample'),
      paint: {
        'circle-radius': 3.5,
        'circle-color': '#ffffff',
        'circle-stroke-color': violationColors.trace,
        'circle-stroke-width': 2,
      },
    });
    map.addLayer({
      id: 'evidence-ends',
      type: 'circle',
      source: sourceId,
      filter: roleIs('start', 'end', 'place-point', 'location'),
      paint: {
        'circle-radius': ['match', ['get', 'role'], 'location', 10, 'place-point', 4, 7],
        // Start: hollow; end: filled; the stop or stand centre in the place's colour; where the rule
        // placed the event: an open ring in the mark's colour, so the stop under it stays visible.
        'circle-color': [
          'match',
          ['get', 'role'],
          'start',
          '#ffffff',
          'end',
          violationColors.trace,
          'place-point',
          violationColors.place,
          violationColors.mark,
        ],
        'circle-opacity': ['match', ['get', 'role'], 'location', 0, 1],
        'circle-stroke-color': [
          'match',
          ['get', 'role'],
          'start',
          violationColors.trace,
          'location',
          violationColors.mark,
          '#ffffff',
        ],
        'circle-stroke-width': ['match', ['get', 'role'], 'start', 3, 'location', 2.5, 2],
      },
    });

    this.popup = new Popup({ closeButton: false, closeOnClick: false, offset: 8, className: 'sample-popup' });
    map.on('mousemove', evidenceSampleLayerId, (event) => {
      map.getCanvas().style.cursor = 'pointer';
      if (!this.pinned) this.showSample(event.features?.[0]);
    });
    map.on('mouseleave', evidenceSampleLayerId, () => {
      map.getCanvas().style.cursor = '';
      if (!this.pinned) this.popup.remove();
    });
  }

  show(view: EvidenceView): void {
    this.view = view;
    this.pinned = false;
    this.popup.remove();
    this.map.getSource<GeoJSONSource>(sourceId)?.setData({ type: 'FeatureCollection', features: features(view) });
  }

  clear(): void {
    this.view = null;
    this.pinned = false;
    this.popup.remove();
    this.map.getSource<GeoJSONSource>(sourceId)?.setData(emptyCollection());
  }

  /** Frames the trace, the place and the event together. */
  fit(): void {
    if (!this.view) return;
    const bounds = new LngLatBounds();
    for (const feature of features(this.view)) extendWith(bounds, feature.geometry);
    if (bounds.isEmpty()) return;
    this.map.fitBounds(bounds, { padding: fitPadding, maxZoom: fitMaxZoom });
  }

  /**
   * A click on a sample pins its readings (touch screens have no hover); returns whether the click
   * was the evidence's, so the caller does not treat it as a click on the fleet.
   */
  handleClick(point: { x: number; y: number }): boolean {
    if (!this.view) return false;
    const hitBox: [PointLike, PointLike] = [
      [point.x - hitTolerancePx, point.y - hitTolerancePx],
      [point.x + hitTolerancePx, point.y + hitTolerancePx],
    ];
    const [feature] = this.map.queryRenderedFeatures(hitBox, { layers: [evidenceSampleLayerId] });
    if (!feature) {
      this.pinned = false;
      this.popup.remove();
      return false;
    }
    this.showSample(feature);
    this.pinned = true;
    return true;
  }

  private showSample(feature: MapGeoJSONFeature | undefined): void {
    const index: unknown = feature?.properties.index;
    const sample = typeof index === 'number' ? this.view?.samples[index] : undefined;
    if (!sample || !this.view) return;
    this.popup.setLngLat([sample.lon, sample.lat]).setDOMContent(sampleContent(sample, this.view.pack));
    if (!this.popup.isOpen()) this.popup.addTo(this.map);
  }
}

function features(view: EvidenceView): EvidenceFeature[] {
  const result: EvidenceFeature[] = [];
  for (const feature of view.place?.features ?? []) {
    const role: Role =
      feature.properties.part === 'area'
        ? 'place-area'
        : feature.properties.part === 'line'
          ? 'place-line'
          : 'place-point';
    result.push({ type: 'Feature', geometry: feature.geometry, properties: { role } });
  }
  if (view.trace.coordinates.length >= 2) {
    result.push({ type: 'Feature', geometry: view.trace, properties: { role: 'trace' } });
  }
  view.samples.forEach((sample, index) => {
    result.push(point([sample.lon, sample.lat], { role: 'sample', index }));
  });
  const first = view.samples[0];
  const last = view.samples.at(-1);
  if (first) result.push(point([first.lon, first.lat], { role: 'start' }));
  if (last && last !== first) result.push(point([last.lon, last.lat], { role: 'end' }));
  if (view.location) result.push(point([view.location.lon, view.location.lat], { role: 'location' }));
  return result;
}

function point(coordinates: GeoJSON.Position, properties: EvidenceFeature['properties']): EvidenceFeature {
  return { type: 'Feature', geometry: { type: 'Point', coordinates }, properties };
}

function emptyCollection(): GeoJSON.FeatureCollection {
  return { type: 'FeatureCollection', features: [] };
}

function extendWith(bounds: LngLatBounds, geometry: GeoJSON.Geometry): void {
  switch (geometry.type) {
    case 'Point':
      extendPosition(bounds, geometry.coordinates);
      break;
    case 'LineString':
    case 'MultiPoint':
      for (const position of geometry.coordinates) extendPosition(bounds, position);
      break;
    case 'Polygon':
    case 'MultiLineString':
      for (const ring of geometry.coordinates) for (const position of ring) extendPosition(bounds, position);
      break;
    case 'MultiPolygon':
      for (const polygon of geometry.coordinates)
        for (const ring of polygon) for (const position of ring) extendPosition(bounds, position);
      break;
    case 'GeometryCollection':
      for (const part of geometry.geometries) extendWith(bounds, part);
      break;
  }
}

function extendPosition(bounds: LngLatBounds, position: GeoJSON.Position): void {
  const [lon, lat] = position;
  if (lon !== undefined && lat !== undefined) bounds.extend([lon, lat]);
}

function sampleContent(sample: EvidenceSample, pack: Pack): HTMLElement {
  const root = element('div', 'sample-popup__body');
  const time = element('time', 'sample-popup__time', localTimeLabel(sample.ts, pack));
  time.dateTime = sample.ts;
  root.append(time);
  const rows: Array<[string, string]> = [
    [t.speed, speedLabel(sample.speedKmh)],
    [t.meter, meterLabel(sample.meterState, sample.tariff)],
  ];
  if (sample.fareCents !== null) rows.push([t.fare, brlLabel(sample.fareCents / 100)]);
  rows.push([t.door, sample.doorOpen === null ? '—' : sample.doorOpen ? t.doorOpen : t.doorClosed]);
  rows.push([passengersTerm, passengerChange(sample)]);
  if (sample.ignition !== null) rows.push([t.ignition, sample.ignition ? t.on : t.off]);
  if (sample.tachoSpeedKmh !== null) rows.push([t.tachograph, speedLabel(sample.tachoSpeedKmh)]);
  if (sample.driverId !== null) rows.push([t.driver, sample.driverId]);
  const list = element('dl', 'sample-popup__facts');
  for (const [term, value] of rows) {
    // The driver's id is data; every other value is a reading formatted by the catalogue.
    const dd = term === t.driver ? valueElement('dd', undefined, value) : element('dd', undefined, value);
    list.append(element('dt', undefined, term), dd);
  }
  root.append(list);
  return root;
}

/** "3 (+2 / −1)": occupancy with the boardings and alightings the sensor counted at that sample. */
function passengerChange(sample: EvidenceSample): string {
  const base = sample.passengers === null ? '—' : String(sample.passengers);
  const moves: string[] = [];
  if (sample.boardings) moves.push(`+${sample.boardings}`);
  if (sample.alightings) moves.push(`−${sample.alightings}`);
  return moves.length > 0 ? `${base} (${moves.join(' / ')})` : base;
}
