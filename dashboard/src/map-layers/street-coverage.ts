import type { Map as MapLibreMap } from 'maplibre-gl';
import { element, setText } from '../dom.js';
import { type Bbox, bboxesIntersect, servedAreaAt } from '../served-areas.js';
import { mapLayersMessages as m } from './map-layers-messages.js';

/** A source only the built-in style has: a configured online style draws streets everywhere. */
export const offlineStreetSourceId = 'streets-sao-paulo';
/** Below this zoom a whole city is a few pixels: no street is expected yet. */
const minZoomForNotice = 9;
/** From this zoom the viewport is a few districts: say so when none of them has streets. */
const minZoomForPartialNotice = 12;

/**
 * The built-in map has streets only where OpenStreetMap extracts were found (public/basemap/SOURCES.md):
 * central São Paulo and Brasília's Plano Piloto, nothing for Belém. Where the viewport is over a
 * served area without street data, a notice on the map says so, so that an empty map is not read as
 * an area without streets.
 */
export class StreetCoverageNotice {
  readonly element: HTMLElement;

  constructor(private readonly map: MapLibreMap) {
    this.element = element('div', 'map-coverage-notice');
    this.element.setAttribute('role', 'status');
    this.element.hidden = true;
    map.getContainer().append(this.element);
    map.on('moveend', () => this.update());
    map.on('styledata', () => this.update());
    this.update();
  }

  update(): void {
    const text = this.message();
    this.element.hidden = text === null;
    if (text !== null) setText(this.element, text);
  }

  private message(): string | null {
    if (this.map.getSource(offlineStreetSourceId) === undefined) return null;
    const zoom = this.map.getZoom();
    if (zoom < minZoomForNotice) return null;
    const centre = this.map.getCenter();
    const area = servedAreaAt(centre.lng, centre.lat);
    if (area === null) return null;
    if (area.streetCoverage === null) return m.coverage.none(area.label);
    if (zoom < minZoomForPartialNotice) return null;
    const bounds = this.map.getBounds();
    const viewport: Bbox = [bounds.getWest(), bounds.getSouth(), bounds.getEast(), bounds.getNorth()];
    return bboxesIntersect(viewport, area.streetCoverage) ? null : m.coverage.partial(area.label);
  }
}
