import type { FilterSpecification, Map as MapLibreMap } from 'maplibre-gl';
import { radiusByZoom, vehicleSourceId } from './vehicle-layer.js';
import type { ViolationStore } from './violation-store.js';
import { violationColors } from './violation-style.js';

const markLayerId = 'vehicles-violation-mark';
const noVehicle: FilterSpecification = ['==', ['get', 'id'], ''];

/**
 * A red ring around every vehicle with an open violation, drawn by WebGL from the fleet's own
 * source so it moves with the marker at no extra cost: only the filter changes, and only when the
 * set of flagged vehicles does (a `match` is a hash lookup per feature, fine for thousands).
 */
export class ViolationMarkLayer {
  private flaggedKey = '';
  private framePending = false;

  constructor(
    private readonly map: MapLibreMap,
    private readonly violations: ViolationStore,
  ) {
    map.addLayer({
      id: markLayerId,
      type: 'circle',
      source: vehicleSourceId,
      filter: noVehicle,
      paint: {
        'circle-radius': radiusByZoom(2),
        'circle-color': violationColors.mark,
        'circle-opacity': 0.12,
        'circle-stroke-color': violationColors.mark,
        'circle-stroke-width': ['interpolate', ['linear'], ['zoom'], 4, 2, 11, 3],
      },
    });
    violations.subscribe(() => this.scheduleRefresh());
    this.refresh();
  }

  private scheduleRefresh(): void {
    if (this.framePending) return;
    this.framePending = true;
    requestAnimationFrame(() => {
      this.framePending = false;
      this.refresh();
    });
  }

  private refresh(): void {
    const ids = this.violations.flaggedVehicleIds().sort();
    const key = ids.join('\n');
    if (key === this.flaggedKey) return;
    this.flaggedKey = key;
    this.map.setFilter(markLayerId, ids.length === 0 ? noVehicle : ['match', ['get', 'id'], ids, true, false]);
  }
}
