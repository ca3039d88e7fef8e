import type {
  ExpressionSpecification,
  GeoJSONSource,
  LayerSpecification,
  Map as MapLibreMap,
  MapMouseEvent,
} from 'maplibre-gl';
import { Popup } from 'maplibre-gl';
import type { ApiClient } from '../api-client.js';
import type { StandItem, StopItem, ZoneItem } from '../api-types.js';
import { listStands, standCentre, standQueue } from '../dispatch-api.js';
import { clockDuration } from '../dispatch-types.js';
import { element, valueElement } from '../dom.js';
import { circlePolygon } from '../place-geometry.js';
import { mapLayersMessages as m } from './map-layers-messages.js';

/**
 * The registry's places on the map, each a layer the user can switch off: zones (airport, signed
 * Bandeira II area, speed limits, unpaved roads), taxi stands with their places (a click shows the
 * legal queue) and bus stops. They are added by code rather than kept in the style so they survive
 * a configured online style (MAP_STYLE_URL), which replaces the whole style.
 */

export type ReferenceLayerKind = 'zones' | 'stands' | 'stops';
export const referenceLayerKinds: readonly ReferenceLayerKind[] = ['zones', 'stands', 'stops'];

/** São Paulo alone has some 22 000 stops: they are fetched and drawn only from street scale. */
export const stopsMinZoom = 13;
const standLabelMinZoom = 13;
const stopLabelMinZoom = 16;
/** The built-in style's glyphs (public/glyphs); a configured style's own font is used instead. */
const builtInLabelFont = ['NotoSans-Regular'];

export const referenceLayerIds: Record<ReferenceLayerKind, readonly string[]> = {
  zones: ['ref-zones-fill', 'ref-zones-outline'],
  stands: ['ref-stands-fill', 'ref-stands-outline', 'ref-stands-label'],
  stops: ['ref-stops-circle', 'ref-stops-label'],
};
const sourceIds: Record<ReferenceLayerKind, string> = { zones: 'ref-zones', stands: 'ref-stands', stops: 'ref-stops' };
const clickableLayers = ['ref-stops-circle', 'ref-stands-fill', 'ref-zones-fill'];
/** A tap on a stand or stop a few pixels off still hits it. */
const clickTolerancePx = 5;

/** Hues kept apart from the vehicle status colours, so a zone's edge is never read as a taxi. */
const zoneColour: ExpressionSpecification = [
  'match',
  ['get', 'kind'],
  'airport',
  '#7c3aed',
  'bandeira2-signed',
  '#c2410c',
  'speed-limit',
  '#be123c',
  'unpaved',
  '#a16207',
  '#475569',
];
const standColour = '#0369a1';
const stopColour = '#1e3a8a';

type Visibility = Record<ReferenceLayerKind, boolean>;

/** How a place's name is written beside it. */
interface LabelText {
  property: 'label' | 'name';
  size: number;
  anchor: 'top' | 'left';
  offset: [number, number];
  colour: string;
}

export interface ReferenceLayersOptions {
  map: MapLibreMap;
  client: () => ApiClient | null;
  visible: Visibility;
  onError: (message: string) => void;
  /** Whether a live vehicle is drawn under a point of the map (CSS pixels); its popup wins a click. */
  vehicleAt: (point: { x: number; y: number }) => boolean;
}

export class ReferenceLayers {
  private readonly map: MapLibreMap;
  private readonly visible: Visibility;
  private stopsLoad: Promise<void> | null = null;
  private readonly popup = new Popup({ closeButton: true, closeOnClick: false, maxWidth: '280px' });

  constructor(private readonly options: ReferenceLayersOptions) {
    this.map = options.map;
    this.visible = { ...options.visible };
    this.addLayers();
    this.map.on('moveend', () => this.loadStopsWhenNeeded());
    this.map.on('click', (event) => this.handleClick(event));
    for (const id of clickableLayers) {
      this.map.on('mouseenter', id, () => {
        this.map.getCanvas().style.cursor = 'pointer';
      });
      this.map.on('mouseleave', id, () => {
        this.map.getCanvas().style.cursor = '';
      });
    }
  }

  isVisible(kind: ReferenceLayerKind): boolean {
    return this.visible[kind];
  }

  setVisible(kind: ReferenceLayerKind, visible: boolean): void {
    this.visible[kind] = visible;
    for (const id of referenceLayerIds[kind]) {
      this.map.setLayoutProperty(id, 'visibility', visible ? 'visible' : 'none');
    }
    if (kind === 'stops') this.loadStopsWhenNeeded();
  }

  /** Reads zones and stands (a few hundred at most); stops follow once the map is at street scale. */
  async load(): Promise<void> {
    const client = this.options.client();
    if (client === null) return;
    const [zones, stands] = await Promise.allSettled([
      client.listAll<ZoneItem & { speedLimitKmh?: number | null }>('/v1/zones'),
      listStands(client),
    ]);
    if (zones.status === 'fulfilled') this.setData('zones', zones.value.map(zoneFeature));
    else this.options.onError(m.loadFailed(m.control.layers.zones));
    if (stands.status === 'fulfilled') this.setData('stands', stands.value.flatMap(standFeatures));
    else this.options.onError(m.loadFailed(m.control.layers.stands));
    this.loadStopsWhenNeeded();
  }

  private loadStopsWhenNeeded(): void {
    if (this.stopsLoad !== null || !this.visible.stops || this.map.getZoom() < stopsMinZoom) return;
    const client = this.options.client();
    if (client === null) return;
    // The registry lists stops by page, not by area: read them all once, then the map culls by viewport.
    this.stopsLoad = client.listAll<StopItem>('/v1/stops').then(
      (stops) => this.setData('stops', stops.map(stopFeature)),
      () => {
        this.stopsLoad = null;
        this.options.onError(m.loadFailed(m.control.layers.stops));
      },
    );
  }

  private setData(kind: ReferenceLayerKind, features: GeoJSON.Feature[]): void {
    const source = this.map.getSource<GeoJSONSource>(sourceIds[kind]);
    source?.setData({ type: 'FeatureCollection', features });
  }

  private addLayers(): void {
    const empty: GeoJSON.FeatureCollection = { type: 'FeatureCollection', features: [] };
    for (const kind of referenceLayerKinds) {
      this.map.addSource(sourceIds[kind], { type: 'geojson', data: empty });
    }
    const styleLayers = this.map.getStyle().layers;
    // Areas go under the base map's labels, so street names stay readable across a zone.
    const firstSymbol = styleLayers.find((layer) => layer.type === 'symbol')?.id;
    const labelFont = styleLabelFont(styleLayers) ?? builtInLabelFont;
    const layout = (kind: ReferenceLayerKind) => ({ visibility: this.visible[kind] ? 'visible' : 'none' }) as const;
    // A fill and an outline per area layer: a zone's kind sets its colour, a stand is always blue.
    const areas = (kind: 'zones' | 'stands', colour: ExpressionSpecification | string, fillOpacity: number) => {
      const filter: ExpressionSpecification = ['in', ['geometry-type'], ['literal', ['Polygon', 'MultiPolygon']]];
      this.map.addLayer(
        {
          id: `ref-${kind}-fill`,
          type: 'fill',
          source: sourceIds[kind],
          filter,
          layout: layout(kind),
          paint: { 'fill-color': colour, 'fill-opacity': fillOpacity },
        },
        firstSymbol,
      );
      this.map.addLayer(
        {
          id: `ref-${kind}-outline`,
          type: 'line',
          source: sourceIds[kind],
          filter,
          layout: { ...layout(kind), 'line-join': 'round' },
          // Zones dashed: they are legal areas, not things on the ground like a stand's bay.
          paint: { 'line-color': colour, 'line-width': 1.5, ...(kind === 'zones' ? { 'line-dasharray': [4, 2] } : {}) },
        },
        firstSymbol,
      );
    };
    areas('zones', zoneColour, 0.1);
    areas('stands', standColour, 0.18);
    const label = (id: string, kind: ReferenceLayerKind, minzoom: number, text: LabelText) =>
      this.map.addLayer({
        id,
        type: 'symbol',
        source: sourceIds[kind],
        filter: ['==', ['geometry-type'], 'Point'],
        minzoom,
        layout: {
          ...layout(kind),
          'text-field': ['get', text.property],
          'text-font': labelFont,
          'text-size': text.size,
          'text-anchor': text.anchor,
          'text-offset': text.offset,
          'text-optional': true,
        },
        paint: { 'text-color': text.colour, 'text-halo-color': '#ffffff', 'text-halo-width': 1.5 },
      });
    label('ref-stands-label', 'stands', standLabelMinZoom, {
      property: 'label',
      size: 12,
      anchor: 'top',
      offset: [0, 0.6],
      colour: standColour,
    });
    this.map.addLayer({
      id: 'ref-stops-circle',
      type: 'circle',
      source: sourceIds.stops,
      minzoom: stopsMinZoom,
      layout: layout('stops'),
      paint: {
        'circle-radius': ['interpolate', ['linear'], ['zoom'], stopsMinZoom, 2.5, 17, 5],
        'circle-color': '#ffffff',
        'circle-stroke-color': stopColour,
        'circle-stroke-width': ['interpolate', ['linear'], ['zoom'], stopsMinZoom, 1.5, 17, 2.5],
      },
    });
    label('ref-stops-label', 'stops', stopLabelMinZoom, {
      property: 'name',
      size: 11,
      anchor: 'left',
      offset: [0.7, 0],
      colour: stopColour,
    });
  }

  private handleClick(event: MapMouseEvent): void {
    const { x, y } = event.point;
    const box: [[number, number], [number, number]] = [
      [x - clickTolerancePx, y - clickTolerancePx],
      [x + clickTolerancePx, y + clickTolerancePx],
    ];
    // A vehicle on top of a place is what the user meant: its own popup opens instead.
    if (this.options.vehicleAt(event.point)) return;
    const layers = clickableLayers.filter((id) => this.map.getLayer(id));
    const [feature] = this.map.queryRenderedFeatures(box, { layers });
    if (!feature) {
      this.popup.remove();
      return;
    }
    const content = element('div', 'place-popup');
    const props = feature.properties;
    const name = typeof props.name === 'string' ? props.name : '';
    content.append(valueElement('strong', 'place-popup__name', name));
    if (feature.layer.id === 'ref-stops-circle') {
      content.append(element('div', 'place-popup__kind', m.stop));
    } else if (feature.layer.id === 'ref-zones-fill') {
      const kind = typeof props.kind === 'string' ? props.kind : '';
      content.append(element('div', 'place-popup__kind', m.zoneKinds[kind] ?? m.zoneOther));
      if (typeof props.speedLimitKmh === 'number')
        content.append(element('div', undefined, m.speedLimit(props.speedLimitKmh)));
    } else {
      this.fillStandPopup(content, props);
    }
    this.popup.setLngLat(event.lngLat).setDOMContent(content).addTo(this.map);
  }

  private fillStandPopup(content: HTMLElement, props: Record<string, unknown>): void {
    const kind = typeof props.kind === 'string' ? m.standKinds[props.kind] : undefined;
    const places = typeof props.places === 'number' ? m.places(props.places) : undefined;
    content.append(element('div', 'place-popup__kind', [kind, places].filter(Boolean).join(' · ')));
    content.append(element('div', 'place-popup__title', m.queueTitle));
    const list = element('ol', 'place-popup__queue');
    const status = element('div', 'place-popup__status', m.queueLoading);
    content.append(status, list);
    const client = this.options.client();
    if (client === null || typeof props.id !== 'string') {
      status.textContent = m.queueFailed;
      return;
    }
    standQueue(client, props.id).then(
      (items) => {
        status.textContent = items.length === 0 ? m.queueEmpty : '';
        status.hidden = items.length > 0;
        list.replaceChildren(
          ...items.map((item, index) => {
            const row = element('li', 'place-popup__queue-item');
            row.append(
              valueElement('span', 'place-popup__plate', item.plate ?? item.vehicleId),
              element('span', undefined, ` ${m.queueEntry(index + 1, clockDuration(item.waitedS))}`),
            );
            return row;
          }),
        );
      },
      () => {
        status.textContent = m.queueFailed;
      },
    );
  }
}

/**
 * A font the style's own glyph server has: a configured style (MAP_STYLE_URL) rarely serves the
 * built-in Noto Sans, and a label asking for a font its server lacks is not drawn.
 */
function styleLabelFont(layers: readonly LayerSpecification[]): string[] | null {
  for (const layer of layers) {
    if (layer.type !== 'symbol') continue;
    const font = layer.layout?.['text-font'];
    // A plain list of names; an expression (['literal', …], data-driven) is not worth following.
    const entries: unknown[] = Array.isArray(font) ? font : [];
    const names = entries.filter((name): name is string => typeof name === 'string');
    if (names.length > 0 && names.length === entries.length) return names;
  }
  return null;
}

function zoneFeature(zone: ZoneItem & { speedLimitKmh?: number | null }): GeoJSON.Feature {
  return {
    type: 'Feature',
    geometry: zone.geometry,
    properties: { id: zone.id, name: zone.name, kind: zone.kind ?? '', speedLimitKmh: zone.speedLimitKmh ?? null },
  };
}

/** A stand's area (its polygon, or its circle of radiusM) and a point at its centre for the label. */
function standFeatures(stand: StandItem): GeoJSON.Feature[] {
  const places = stand.places ?? 0;
  const properties = {
    id: stand.id,
    name: stand.name,
    kind: stand.kind ?? '',
    places,
    label: m.standLabel(stand.name, places),
  };
  const centre = standCentre(stand);
  const area: GeoJSON.Polygon | null =
    stand.geometry.type === 'Polygon'
      ? stand.geometry
      : stand.radiusM
        ? circlePolygon([centre.lon, centre.lat], stand.radiusM)
        : null;
  const point: GeoJSON.Feature = {
    type: 'Feature',
    geometry: { type: 'Point', coordinates: [centre.lon, centre.lat] },
    properties,
  };
  return area ? [{ type: 'Feature', geometry: area, properties }, point] : [point];
}

function stopFeature(stop: StopItem): GeoJSON.Feature {
  return {
    type: 'Feature',
    geometry: { type: 'Point', coordinates: [stop.lon, stop.lat] },
    properties: { id: stop.id, name: stop.name },
  };
}
