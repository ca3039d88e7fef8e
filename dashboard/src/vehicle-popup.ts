import { type Map as MapLibreMap, Popup } from 'maplibre-gl';
import { element } from './dom.js';
import type { FleetStore, TrackedVehicle } from './fleet-store.js';
import { agoLabel, clockLabel, meterLabel, packLabel, passengersLabel, passengersTerm, speedLabel } from './format.js';
import { statusStyles } from './vehicle-status.js';
import { violationBadges } from './violation-badges.js';
import { feedTimeLabel } from './violation-format.js';
import type { ViolationStore } from './violation-store.js';

export interface VehiclePopupOptions {
  map: MapLibreMap;
  store: FleetStore;
  operatorName: (operatorId: string | null) => string;
  now: () => number;
  /** Told when the popup opens on a vehicle or closes (null), to highlight the vehicle on the map. */
  onSelectionChange: (vehicleId: string | null) => void;
  violations: ViolationStore;
  /** A violation listed in the popup was chosen. */
  onOpenViolation: (violationId: string) => void;
}

/** A popup is a glance: a vehicle with a long backlog is worked through in the feed instead. */
const maxListedViolations = 5;

/**
 * Details of one vehicle, kept current (position, meter, "seen n s ago") while it stays open,
 * with the vehicle's open violations. The facts are rewritten every second; the violations list
 * only when it changes, so a click on one of its entries is never lost to a refresh.
 */
export class VehiclePopup {
  private readonly popup: Popup;
  private vehicleId: string | null = null;
  private framePending = false;
  private readonly root = element('div', 'vehicle-popup');
  private readonly summary = element('div', 'vehicle-popup__summary');
  private readonly violationList = element('div', 'vehicle-popup__violations');
  private violationsKey: string | null = null;

  constructor(private readonly options: VehiclePopupOptions) {
    this.popup = new Popup({ closeButton: true, closeOnClick: false, offset: 12, maxWidth: '300px' });
    this.popup.on('close', () => {
      this.vehicleId = null;
      options.onSelectionChange(null);
    });
    this.root.append(this.summary, this.violationList);
    options.store.subscribe(() => this.scheduleRefresh());
    options.violations.subscribe(() => this.scheduleRefresh());
    // "n s ago" ages with no message at all.
    window.setInterval(() => this.refresh(), 1000);
  }

  open(vehicleId: string): void {
    const vehicle = this.options.store.get(vehicleId);
    if (!vehicle?.position) return;
    this.vehicleId = vehicleId;
    this.violationsKey = null;
    this.render(vehicle);
    this.popup.setLngLat([vehicle.position.lon, vehicle.position.lat]).setDOMContent(this.root);
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
    this.render(vehicle);
    this.popup.setLngLat([vehicle.position.lon, vehicle.position.lat]);
  }

  private render(vehicle: TrackedVehicle): void {
    this.root.dataset.vehicleId = vehicle.id;
    this.renderSummary(vehicle);
    this.renderViolations(vehicle);
  }

  private renderSummary(vehicle: TrackedVehicle): void {
    const now = this.options.now();
    const style = statusStyles[vehicle.status];

    const header = element('div', 'vehicle-popup__header');
    header.append(element('span', 'vehicle-popup__plate', vehicle.plate));
    const badge = element('span', 'status-badge', style.label);
    badge.style.setProperty('--status-color', style.color);
    header.append(badge);
    const operator = element('div', 'vehicle-popup__operator', this.options.operatorName(vehicle.operatorId));

    const rows: Array<[string, string]> = [
      ['Pack', packLabel(vehicle.pack)],
      ['Speed', speedLabel(vehicle.speedKmh)],
      ['Meter', meterLabel(vehicle.meterState, vehicle.tariff)],
      [`${passengersTerm} / capacity`, passengersLabel(vehicle.passengers, vehicle.capacity)],
      [
        'Last seen',
        vehicle.lastSeenMs === null
          ? 'never'
          : `${clockLabel(vehicle.lastSeenMs, now)} (${agoLabel(vehicle.lastSeenMs, now)})`,
      ],
    ];
    const list = element('dl', 'vehicle-popup__facts');
    for (const [term, value] of rows) list.append(element('dt', undefined, term), element('dd', undefined, value));
    this.summary.replaceChildren(header, operator, list);
  }

  private renderViolations(vehicle: TrackedVehicle): void {
    const open = this.options.violations.openForVehicle(vehicle.id);
    const key = open.map((violation) => `${violation.id}:${violation.status}`).join(',');
    if (key === this.violationsKey) return;
    this.violationsKey = key;
    if (open.length === 0) {
      this.violationList.replaceChildren();
      return;
    }
    const now = this.options.now();
    const heading = element('div', 'vehicle-popup__violations-heading', `Open violations (${open.length})`);
    const list = element('ul', 'vehicle-popup__violation-list');
    for (const violation of open.slice(0, maxListedViolations)) {
      const button = element('button', 'vehicle-popup__violation');
      button.type = 'button';
      button.dataset.violationId = violation.id;
      button.title = violation.descriptionEn;
      const top = element('span', 'vehicle-popup__violation-top');
      top.append(element('code', 'rule-id', violation.ruleId), ...violationBadges(violation).slice(0, 1));
      const description = element('span', 'vehicle-popup__violation-description', violation.description);
      description.lang = 'pt-BR';
      const time = element(
        'span',
        'vehicle-popup__violation-time',
        feedTimeLabel(violation.startedAt, violation.pack, now),
      );
      button.append(top, description, time);
      button.addEventListener('click', () => this.options.onOpenViolation(violation.id));
      const item = element('li');
      item.append(button);
      list.append(item);
    }
    this.violationList.replaceChildren(heading, list);
    if (open.length > maxListedViolations) {
      const more = open.length - maxListedViolations;
      this.violationList.append(element('div', 'vehicle-popup__violations-more', `and ${more} more in the feed`));
    }
  }
}
