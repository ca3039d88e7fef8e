import { type Map as MapLibreMap, Popup } from 'maplibre-gl';
import { element } from './dom.js';
import type { FleetStore, TrackedVehicle } from './fleet-store.js';
import { agoLabel, clockLabel, meterLabel, packLabel, passengersLabel, speedLabel } from './format.js';
import { statusStyles } from './vehicle-status.js';

export interface VehiclePopupOptions {
  map: MapLibreMap;
  store: FleetStore;
  operatorName: (operatorId: string | null) => string;
  now: () => number;
  /** Told when the popup opens on a vehicle or closes (null), to highlight the vehicle on the map. */
  onSelectionChange: (vehicleId: string | null) => void;
}

/** Details of one vehicle, kept current (position, meter, "seen n s ago") while it stays open. */
export class VehiclePopup {
  private readonly popup: Popup;
  private vehicleId: string | null = null;
  private framePending = false;

  constructor(private readonly options: VehiclePopupOptions) {
    this.popup = new Popup({ closeButton: true, closeOnClick: false, offset: 12, maxWidth: '300px' });
    this.popup.on('close', () => {
      this.vehicleId = null;
      options.onSelectionChange(null);
    });
    options.store.subscribe(() => this.scheduleRefresh());
    // "n s ago" ages with no message at all.
    window.setInterval(() => this.refresh(), 1000);
  }

  open(vehicleId: string): void {
    const vehicle = this.options.store.get(vehicleId);
    if (!vehicle?.position) return;
    this.vehicleId = vehicleId;
    this.popup.setLngLat([vehicle.position.lon, vehicle.position.lat]).setDOMContent(this.render(vehicle));
    if (!this.popup.isOpen()) this.popup.addTo(this.options.map);
    this.options.onSelectionChange(vehicleId);
  }

  close(): void {
    if (this.popup.isOpen()) this.popup.remove();
  }

  private scheduleRefresh(): void {
    if (this.vehicleId === null || this.framePending) return;
    this.framePending = true;
    requestAnimationFrame(() => {
      this.framePending = false;
      this.refresh();
    });
  }

  private refresh(): void {
    if (this.vehicleId === null) return;
    const vehicle = this.options.store.get(this.vehicleId);
    if (!vehicle?.position) return;
    this.popup.setLngLat([vehicle.position.lon, vehicle.position.lat]).setDOMContent(this.render(vehicle));
  }

  private render(vehicle: TrackedVehicle): HTMLElement {
    const now = this.options.now();
    const style = statusStyles[vehicle.status];
    const root = element('div', 'vehicle-popup');
    root.dataset.vehicleId = vehicle.id;

    const header = element('div', 'vehicle-popup__header');
    header.append(element('span', 'vehicle-popup__plate', vehicle.plate));
    const badge = element('span', 'status-badge', style.label);
    badge.style.setProperty('--status-color', style.color);
    header.append(badge);
    root.append(header, element('div', 'vehicle-popup__operator', this.options.operatorName(vehicle.operatorId)));

    const rows: Array<[string, string]> = [
      ['Pack', packLabel(vehicle.pack)],
      ['Speed', speedLabel(vehicle.speedKmh)],
      ['Meter', meterLabel(vehicle.meterState, vehicle.tariff)],
      ['Passengers', passengersLabel(vehicle.passengers, vehicle.capacity)],
      [
        'Last seen',
        vehicle.lastSeenMs === null
          ? 'never'
          : `${clockLabel(vehicle.lastSeenMs, now)} (${agoLabel(vehicle.lastSeenMs, now)})`,
      ],
    ];
    const list = element('dl', 'vehicle-popup__facts');
    for (const [term, value] of rows) list.append(element('dt', undefined, term), element('dd', undefined, value));
    root.append(list);
    return root;
  }
}
