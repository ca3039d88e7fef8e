import { AttributionControl, Map as MapLibreMap, NavigationControl, ScaleControl } from 'maplibre-gl';
import { deskMessages } from './desk-messages.js';
import { element } from './dom.js';
import { mapLayersMessages } from './map-layers/map-layers-messages.js';
import { allAreasBounds, servedAreas } from './served-areas.js';

/**
 * Shipped in public/: renders with no network at all (streets of the served cities from
 * public/basemap/, label glyphs from public/glyphs/; see the dashboard README's base map section).
 */
export const offlineStyleUrl = '/offline-style.json';

const fitPadding = 48;

export interface MapViewOptions {
  container: HTMLElement;
  styleUrl: string;
  /** Told when a configured style cannot be loaded and the offline one is used instead. */
  onStyleFallback: (failedUrl: string) => void;
}

export interface MapView {
  map: MapLibreMap;
  /** Settles on the map's first `load`: the style is ready and layers can be added. */
  loaded: Promise<void>;
}

export function createMap(options: MapViewOptions): MapView {
  const map = new MapLibreMap({
    container: options.container,
    // The controls' titles and labels (zoom, close, the canvas's name) in the interface's language.
    locale: deskMessages.mapControls,
    style: options.styleUrl,
    bounds: allAreasBounds,
    fitBoundsOptions: { padding: fitPadding },
    attributionControl: false,
    // Labels appear at once instead of fading in: a fade keeps the map drawing frames for 300 ms
    // after every symbol placement. While the fleet was a layer of the map, redrawn twice a second,
    // that was most of the main thread's time; the fleet has its own canvas now, and the fade
    // would only cost frames after camera moves (dashboard/README.md, "The map at 20,000 vehicles").
    fadeDuration: 0,
    // Regulators compare positions with street addresses; a tilted or rotated map only gets in the way.
    dragRotate: false,
    pitchWithRotate: false,
    touchPitch: false,
  });
  map.touchZoomRotate.disableRotation();
  map.keyboard.disableRotation();
  map.addControl(new NavigationControl({ showCompass: false }), 'top-right');
  map.addControl(new ScaleControl({ unit: 'metric' }), 'bottom-right');
  // The streets are OpenStreetMap data (ODbL): their attribution stays on screen, not behind a button.
  map.addControl(new AttributionControl({ compact: false }), 'bottom-right');

  const loaded = new Promise<void>((resolve) => map.once('load', () => resolve()));

  // A configured online style is useless on a control-room network without internet access:
  // fall back once to the built-in style rather than leaving an empty map.
  if (options.styleUrl !== offlineStyleUrl) {
    const onError = () => {
      map.off('error', onError);
      options.onStyleFallback(options.styleUrl);
      map.setStyle(offlineStyleUrl);
    };
    map.on('error', onError);
    void loaded.then(() => map.off('error', onError));
  }
  return { map, loaded };
}

/** Fills the top bar's area switcher: the whole served territory, then each city. */
export function renderAreaNavigation(container: HTMLElement, map: MapLibreMap): void {
  const allButton = element('button', 'area-nav__button', mapLayersMessages.allAreas);
  allButton.type = 'button';
  allButton.dataset.area = 'all';
  allButton.addEventListener('click', () => map.fitBounds(allAreasBounds, { padding: fitPadding }));
  const buttons = [allButton];
  for (const area of servedAreas) {
    const button = element('button', 'area-nav__button', area.label);
    button.type = 'button';
    button.dataset.area = area.id;
    // City names are proper nouns, the same in every language.
    button.dataset.value = '';
    button.addEventListener('click', () => map.flyTo({ center: area.center, zoom: area.zoom, essential: true }));
    buttons.push(button);
  }
  container.replaceChildren(...buttons);
}
