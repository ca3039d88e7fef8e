import type { LngLatBoundsLike, Map as MapLibreMap } from 'maplibre-gl';
import type { ApiClient } from '../api-client.js';
import type { FleetStore } from '../fleet-store.js';
import { SearchBox, type SearchItem } from './search-box.js';
import { searchMessages } from './search-messages.js';

export interface SearchNavigationOptions {
  map: MapLibreMap;
  fleet: FleetStore;
  /** Opens a vehicle's popup (vehicle-popup.ts), as a click on it does. */
  openVehicle: (vehicleId: string) => void;
  /** Says why nothing moved (a vehicle without a position yet). */
  notify: (message: string) => void;
}

/** Close enough to read the street names around a vehicle or a place. */
const placeZoom = 16;
const fleetPadding = 80;

/**
 * What choosing a search result does on the map: a vehicle flies to its live position and opens
 * its popup; a stop or stand flies to it; an operator, or a driver (by the operator they drive
 * for), frames that operator's vehicles on the map.
 */
export function goToSearchResult(item: SearchItem, options: SearchNavigationOptions): void {
  const { map, fleet } = options;
  const flyTo = (lon: number, lat: number) =>
    map.flyTo({ center: [lon, lat], zoom: Math.max(map.getZoom(), placeZoom), essential: true });
  switch (item.kind) {
    case 'vehicle': {
      const position = fleet.get(item.id)?.position ?? (item.lat !== undefined && item.lon !== undefined ? item : null);
      if (!position || position.lat === undefined || position.lon === undefined) {
        options.notify(searchMessages.noPosition(item.label));
        return;
      }
      flyTo(position.lon, position.lat);
      options.openVehicle(item.id);
      return;
    }
    case 'stop':
    case 'stand':
      if (item.lat !== undefined && item.lon !== undefined) flyTo(item.lon, item.lat);
      return;
    case 'operator':
    case 'driver': {
      const positions = [...fleet.all()]
        .filter((v) => item.operatorId !== undefined && v.operatorId === item.operatorId)
        .flatMap((v) => (v.position ? [v.position] : []));
      if (positions.length === 0) {
        options.notify(searchMessages.noVehiclesShown(item.kind === 'operator' ? item.label : item.detail));
        return;
      }
      const lons = positions.map((p) => p.lon);
      const lats = positions.map((p) => p.lat);
      const bounds: LngLatBoundsLike = [
        [Math.min(...lons), Math.min(...lats)],
        [Math.max(...lons), Math.max(...lats)],
      ];
      map.fitBounds(bounds, { padding: fleetPadding, maxZoom: placeZoom - 1 });
      return;
    }
  }
}

/** The search box in `container` (the top bar's `#search`), choosing results onto the map. */
export function mountSearch(
  options: SearchNavigationOptions & {
    container: HTMLElement;
    client: () => ApiClient | null;
    onUnauthorized?: () => void;
  },
): SearchBox {
  const { container, client, onUnauthorized, ...navigation } = options;
  return new SearchBox(container, {
    client,
    onChoose: (item) => goToSearchResult(item, navigation),
    ...(onUnauthorized ? { onUnauthorized } : {}),
  });
}
