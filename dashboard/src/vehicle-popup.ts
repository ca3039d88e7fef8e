import { type Map as MapLibreMap, Popup } from 'maplibre-gl';
import { AddressView } from './address-lookup.js';
import type { ApiClient } from './api-client.js';
import { element, valueElement } from './dom.js';
import { fleetMessages } from './fleet-messages.js';
import type { FleetStore, TrackedVehicle } from './fleet-store.js';
import { meterLabel, packLabel, passengersLabel, passengersTerm, speedLabel } from './format.js';
import { agoLabel, recentTime, zoneName } from './legal-time.js';
import { replayMessages } from './replay/replay-messages.js';
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
  /** "Histórico" was chosen: the vehicle's trail and timeline (dashboard/src/replay/). */
  onOpenHistory?: (vehicleId: string) => void;
  /** The signed-in client, for the address line (street first, coordinates second); none: coordinates only. */
  client?: () => ApiClient | null;
}

const t = fleetMessages.popup;

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
  /** Built once, outside the parts rewritten every second, so a click on it is never lost to a refresh. */
  private readonly actions = element('div', 'vehicle-popup__actions');
  private violationsKey: string | null = null;
  /** Kept across the summary's rewrites: its street line comes from a lookup. */
  private readonly address = new AddressView('vehicle-popup__address');

  constructor(private readonly options: VehiclePopupOptions) {
    this.popup = new Popup({ closeButton: true, closeOnClick: false, offset: 12, maxWidth: '300px' });
    this.popup.on('close', () => {
      this.vehicleId = null;
      options.onSelectionChange(null);
    });
    this.root.append(this.summary, this.violationList);
    const { onOpenHistory } = options;
    if (onOpenHistory) {
      const history = element('button', 'vehicle-popup__history', replayMessages.openHistory);
      history.type = 'button';
      history.title = replayMessages.openHistoryTitle;
      history.addEventListener('click', () => {
        if (this.vehicleId !== null) onOpenHistory(this.vehicleId);
      });
      this.actions.append(history);
      this.root.append(this.actions);
    }
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
    header.append(valueElement('span', 'vehicle-popup__plate', vehicle.plate));
    const badge = element('span', 'status-badge', style.label);
    badge.style.setProperty('--status-color', style.color);
    header.append(badge);
    const operator = valueElement('div', 'vehicle-popup__operator', this.options.operatorName(vehicle.operatorId));

    const rows: Array<[string, string]> = [
      [t.pack, packLabel(vehicle.pack)],
      [t.speed, speedLabel(vehicle.speedKmh)],
      [t.meter, meterLabel(vehicle.meterState, vehicle.tariff)],
      [t.passengersOfCapacity(passengersTerm), passengersLabel(vehicle.passengers, vehicle.capacity)],
      [
        t.lastSeen,
        vehicle.lastSeenMs === null
          ? t.never
          : t.lastSeenValue(
              recentTime(vehicle.lastSeenMs, vehicle.pack, now),
              zoneName(vehicle.pack, vehicle.lastSeenMs),
              agoLabel(vehicle.lastSeenMs, now),
            ),
      ],
    ];
    const list = element('dl', 'vehicle-popup__facts');
    for (const [term, value] of rows) list.append(element('dt', undefined, term), element('dd', undefined, value));
    if (vehicle.position)
      this.address.show(this.options.client?.() ?? null, vehicle.position.lat, vehicle.position.lon);
    this.summary.replaceChildren(header, operator, this.address.element, list);
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
    const heading = element('div', 'vehicle-popup__violations-heading', t.openViolations(open.length));
    const list = element('ul', 'vehicle-popup__violation-list');
    for (const violation of open.slice(0, maxListedViolations)) {
      const button = element('button', 'vehicle-popup__violation');
      button.type = 'button';
      button.dataset.violationId = violation.id;
      button.title = violation.descriptionEn;
      button.dataset.valueTitle = '';
      const top = element('span', 'vehicle-popup__violation-top');
      top.append(valueElement('code', 'rule-id', violation.ruleId), ...violationBadges(violation).slice(0, 1));
      const description = valueElement('span', 'vehicle-popup__violation-description', violation.description);
      description.lang = 'pt-BR';
      const time = element(
        'time',
        'vehicle-popup__violation-time',
        feedTimeLabel(violation.startedAt, violation.pack, now),
      );
      time.dateTime = violation.startedAt;
      button.append(top, description, time);
      button.addEventListener('click', () => this.options.onOpenViolation(violation.id));
      const item = element('li');
      item.append(button);
      list.append(item);
    }
    this.violationList.replaceChildren(heading, list);
    if (open.length > maxListedViolations) {
      const more = open.length - maxListedViolations;
      this.violationList.append(element('div', 'vehicle-popup__violations-more', t.more(more)));
    }
  }
}
