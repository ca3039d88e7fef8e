import type { Map as MapLibreMap } from 'maplibre-gl';
import type { FleetStore } from './fleet-store.js';
import type { DrawnCluster, DrawnVehicle, VehicleLayer } from './vehicle-layer.js';
import type { VehicleStatus } from './vehicle-status.js';

export interface VehicleSnapshot {
  id: string;
  lat: number;
  lon: number;
  status: VehicleStatus;
}

/**
 * `window.vigia`: a read-only handle for browser tests and for debugging from the console. It is
 * not an API for other scripts: `map` is the live MapLibre instance and `vehicles()` returns a
 * fresh copy of every placed vehicle's position and status each time it is called; `drawn()` what
 * the fleet's WebGL layer drew on its last frame (vehicles on their own, and groups with their
 * count), which MapLibre cannot be asked about.
 */
export interface VigiaDebugHandle {
  readonly map: MapLibreMap;
  vehicles(): VehicleSnapshot[];
  drawn(): { vehicles: DrawnVehicle[]; clusters: DrawnCluster[] };
}

declare global {
  interface Window {
    vigia?: VigiaDebugHandle;
  }
}

export function installDebugHandle(map: MapLibreMap, store: FleetStore, vehicleLayer: () => VehicleLayer | null): void {
  const handle: VigiaDebugHandle = Object.freeze({
    map,
    drawn: () => vehicleLayer()?.drawn() ?? { vehicles: [], clusters: [] },
    vehicles: () => {
      const snapshots: VehicleSnapshot[] = [];
      for (const vehicle of store.all()) {
        if (!vehicle.position) continue;
        snapshots.push({
          id: vehicle.id,
          lat: vehicle.position.lat,
          lon: vehicle.position.lon,
          status: vehicle.status,
        });
      }
      return snapshots;
    },
  });
  Object.defineProperty(window, 'vigia', { value: handle, writable: false, configurable: false, enumerable: false });
}
