import type { IControl, Map as MapLibreMap } from 'maplibre-gl';
import { element } from '../dom.js';
import { mapLayersMessages as m } from './map-layers-messages.js';
import {
  type ReferenceLayerKind,
  type ReferenceLayers,
  referenceLayerKinds,
  stopsMinZoom,
} from './reference-layers.js';

const storageKey = 'vigia.map-layers';

/** Which reference layers are on: what the user chose last time on this browser, every layer by default. */
export function storedLayerVisibility(): Record<ReferenceLayerKind, boolean> {
  const visible = { zones: true, stands: true, stops: true };
  try {
    const stored: unknown = JSON.parse(globalThis.localStorage?.getItem(storageKey) ?? 'null');
    if (stored !== null && typeof stored === 'object') {
      for (const kind of referenceLayerKinds) {
        const value = (stored as Record<string, unknown>)[kind];
        if (typeof value === 'boolean') visible[kind] = value;
      }
    }
  } catch {
    // Unreadable or refused storage: the defaults still work.
  }
  return visible;
}

function storeLayerVisibility(layers: ReferenceLayers): void {
  const state = Object.fromEntries(referenceLayerKinds.map((kind) => [kind, layers.isVisible(kind)]));
  try {
    globalThis.localStorage?.setItem(storageKey, JSON.stringify(state));
  } catch {
    // Storage refused (private window): the choice lasts for this page only.
  }
}

/** The map's layer switcher: a checkbox per reference layer, in a MapLibre control group. */
export class LayerControl implements IControl {
  private container: HTMLElement | null = null;
  private map: MapLibreMap | null = null;
  private stopsHint: HTMLElement | null = null;
  private readonly onZoom = () => this.updateStopsHint();

  constructor(private readonly layers: ReferenceLayers) {}

  onAdd(map: MapLibreMap): HTMLElement {
    this.map = map;
    const container = element('details', 'maplibregl-ctrl maplibregl-ctrl-group layer-control');
    const summary = element('summary', 'layer-control__summary', m.control.title);
    container.append(summary);
    for (const kind of referenceLayerKinds) {
      const label = element('label', 'layer-control__option');
      const box = element('input');
      box.type = 'checkbox';
      box.name = `layer-${kind}`;
      box.dataset.layer = kind;
      box.checked = this.layers.isVisible(kind);
      box.addEventListener('change', () => {
        this.layers.setVisible(kind, box.checked);
        storeLayerVisibility(this.layers);
        this.updateStopsHint();
      });
      label.append(box, element('span', undefined, m.control.layers[kind]));
      container.append(label);
      if (kind === 'stops') {
        this.stopsHint = element('small', 'layer-control__hint', m.control.stopsZoomHint);
        container.append(this.stopsHint);
      }
    }
    map.on('zoomend', this.onZoom);
    this.container = container;
    this.updateStopsHint();
    return container;
  }

  onRemove(): void {
    this.map?.off('zoomend', this.onZoom);
    this.container?.remove();
    this.container = null;
    this.map = null;
  }

  private updateStopsHint(): void {
    if (!this.stopsHint || !this.map) return;
    this.stopsHint.hidden = !this.layers.isVisible('stops') || this.map.getZoom() >= stopsMinZoom;
  }
}
