import { AddressView, type PlacesClient } from './address-lookup.js';
import type { DispatchOperator } from './dispatch-api.js';
import type { CandidateSource } from './dispatch-candidates.js';
import { dispatchMessages as t } from './dispatch-messages.js';
import {
  type Booking,
  clockDuration,
  closedStatuses,
  openOffer,
  remainingS,
  waitingStatuses,
} from './dispatch-types.js';
import { element, valueElement } from './dom.js';
import { distanceLabel, distanceM, type LatLon } from './field-geo.js';
import type { FleetStore, TrackedVehicle } from './fleet-store.js';

/**
 * A free taxi the dispatcher may assign, numbered for the keys: from the server's ranking
 * (dispatch-candidates.ts), or, when that fails, from the live fleet by straight line.
 */
export interface Candidate extends LatLon {
  id: string;
  plate: string;
  distanceM: number;
  /** The server's estimate: the ranking's, or (fallback) an offer's this booking made it; null: none. */
  etaS: number | null;
  /** The server's ranking basis; absent in the fallback list. */
  basis?: 'stand-queue' | 'eta';
}

/** Keys 1–9. */
export const maxCandidates = 9;

/**
 * The operator's free, online taxis from the live fleet: its own vehicles and, for a radio
 * operator, those it declared (Belém Art. 42–44). The server decides in the end (assign answers
 * 4xx for a taxi it may not take); this list is what the dispatcher can see to choose from.
 */
export function candidatesFor(
  booking: Booking,
  fleet: FleetStore,
  operator: DispatchOperator | undefined,
): Candidate[] {
  const declared = new Set(operator?.declaredVehicleIds ?? []);
  const etas = new Map<string, number>();
  for (const offer of booking.offers) if (offer.etaS !== null) etas.set(offer.vehicleId, offer.etaS);
  const out: Candidate[] = [];
  for (const vehicle of fleet.all()) {
    if (!isFreeTaxiOf(vehicle, booking.operatorId, declared) || vehicle.position === null) continue;
    out.push({
      id: vehicle.id,
      plate: vehicle.plate,
      lat: vehicle.position.lat,
      lon: vehicle.position.lon,
      distanceM: distanceM(booking.pickup, vehicle.position),
      etaS: etas.get(vehicle.id) ?? null,
    });
  }
  return out.sort((a, b) => a.distanceM - b.distanceM).slice(0, maxCandidates);
}

function isFreeTaxiOf(vehicle: TrackedVehicle, operatorId: string, declared: ReadonlySet<string>): boolean {
  return vehicle.status === 'free' && (vehicle.operatorId === operatorId || declared.has(vehicle.id));
}

export interface BookingDetailOptions {
  onAssign: (candidate: Candidate) => void;
  onCancel: () => void;
  plateOf: (vehicleId: string) => string;
  now: () => number;
  /** The signed-in client, for the pickup's street (first) and coordinates (second). */
  client?: () => PlacesClient | null;
}

/**
 * The selected booking: its offers (with the server's ETA), the free taxis to assign it to (keys
 * 1–9), and the cancel action (C, then Enter). Redrawn when the booking or the fleet changes.
 */
export class BookingDetail {
  private readonly body: HTMLElement;
  private readonly message: HTMLElement;
  private confirming = false;
  /** Kept across redraws (the fleet redraws the detail often): its street line comes from a lookup. */
  private readonly address = new AddressView('dispatch-detail__place');

  constructor(
    root: HTMLElement,
    private readonly options: BookingDetailOptions,
  ) {
    root.append(element('h2', 'panel-heading', t.detailHeading));
    this.body = element('div', 'dispatch-detail');
    this.message = element('p', 'dispatch-message');
    this.message.setAttribute('role', 'status');
    this.message.hidden = true;
    root.append(this.body, this.message);
    this.render(null, [], { kind: 'loading' });
  }

  get isConfirming(): boolean {
    return this.confirming;
  }

  askCancel(): void {
    this.confirming = true;
    this.say(t.cancelConfirm, 'pending');
  }

  dropConfirm(): boolean {
    if (!this.confirming) return false;
    this.confirming = false;
    this.message.hidden = true;
    return true;
  }

  say(text: string, state: 'ok' | 'error' | 'pending'): void {
    this.message.textContent = text;
    this.message.dataset.state = state;
    this.message.hidden = false;
  }

  /** The open offer's countdown, every second, without redrawing the rest. */
  tick(): void {
    const now = this.options.now();
    for (const node of this.body.querySelectorAll<HTMLElement>('[data-expires-at]')) {
      node.textContent = clockDuration(remainingS({ expiresAt: node.dataset.expiresAt ?? '' }, now));
    }
  }

  render(booking: Booking | null, candidates: readonly Candidate[], source: CandidateSource): void {
    this.body.replaceChildren();
    if (booking === null) {
      this.confirming = false;
      this.message.hidden = true;
      this.body.append(element('p', 'dispatch-empty', t.noSelection));
      return;
    }
    this.body.dataset.bookingId = booking.id;
    const head = element('div', 'dispatch-detail__head');
    head.append(
      element('span', `dispatch-status dispatch-status--${booking.status}`, t.status[booking.status]),
      booking.pickup.address
        ? valueElement('strong', 'dispatch-detail__address', booking.pickup.address)
        : element('strong', 'dispatch-detail__address', t.noPickupAddress),
    );
    this.address.show(this.options.client?.() ?? null, booking.pickup.lat, booking.pickup.lon);
    this.body.append(head, this.address.element);
    const facts = element('p', 'dispatch-detail__facts');
    // The id and the dispatcher's notes are data; the rest is catalogue text.
    const parts: Array<string | HTMLElement> = [
      valueElement('span', undefined, booking.id),
      t.modeBadge[booking.mode ?? 'auto'],
    ];
    if (booking.passengers) parts.push(t.passengersCount(booking.passengers));
    if (booking.vehicleId) parts.push(t.vehicle(this.options.plateOf(booking.vehicleId)));
    if (booking.notes) parts.push(valueElement('span', undefined, booking.notes));
    parts.forEach((part, index) => {
      facts.append(...(index === 0 ? [part] : [' · ', part]));
    });
    this.body.append(facts);

    if (booking.offers.length > 0) {
      this.body.append(element('h3', 'dispatch-subheading', t.offersHeading));
      const offers = element('ol', 'dispatch-offers');
      const open = openOffer(booking);
      for (const offer of booking.offers) {
        const response = offer.response ?? 'open';
        const parts = [this.options.plateOf(offer.vehicleId), t.offerResponse[response]];
        if (offer.etaS !== null) parts.push(t.eta(clockDuration(offer.etaS)));
        const item = element('li', `dispatch-offer dispatch-offer--${response}`, parts.join(' · '));
        item.dataset.offerId = offer.id;
        item.dataset.response = response;
        if (offer === open) {
          const left = element('span', 'dispatch-offer__left');
          left.dataset.expiresAt = offer.expiresAt;
          item.append(' · ', left);
        }
        offers.append(item);
      }
      this.body.append(offers);
    }

    if (waitingStatuses.includes(booking.status)) this.renderCandidates(candidates, source);
    if (closedStatuses.includes(booking.status)) return;
    const cancel = element('button', 'dispatch-button dispatch-button--danger', t.cancel);
    cancel.type = 'button';
    cancel.dataset.action = 'cancel';
    cancel.addEventListener('click', () => this.options.onCancel());
    this.body.append(cancel);
  }

  private renderCandidates(candidates: readonly Candidate[], source: CandidateSource): void {
    this.body.append(element('h3', 'dispatch-subheading', t.taxisHeading));
    const note = element('p', 'dispatch-note', taxisNote(source));
    note.dataset.source = source.kind;
    this.body.append(note);
    if (source.kind === 'loading') return;
    if (candidates.length === 0) {
      this.body.append(element('p', 'dispatch-empty', t.taxisEmpty));
    } else {
      const list = element('ol', 'dispatch-taxis');
      candidates.forEach((candidate, index) => {
        const item = element('li', 'dispatch-taxi');
        item.dataset.vehicleId = candidate.id;
        const text =
          source.kind === 'server' && candidate.etaS !== null
            ? [t.rankedTaxiRow(String(index + 1), candidate.plate, candidate.etaS, distanceLabel(candidate.distanceM))]
            : [t.taxiRow(String(index + 1), candidate.plate, distanceLabel(candidate.distanceM))];
        if (source.kind !== 'server' && candidate.etaS !== null) text.push(t.eta(clockDuration(candidate.etaS)));
        if (candidate.basis === 'stand-queue') text.push(t.standQueueBasis);
        if (candidate.etaS !== null) item.dataset.etaS = String(candidate.etaS);
        const assign = element('button', 'dispatch-button dispatch-button--small', `${t.assign} (${index + 1})`);
        assign.type = 'button';
        assign.addEventListener('click', () => this.options.onAssign(candidate));
        item.append(element('span', 'dispatch-taxi__text', text.join(' · ')), assign);
        list.append(item);
      });
      this.body.append(list);
    }
  }
}

function taxisNote(source: CandidateSource): string {
  if (source.kind === 'loading') return t.taxisLoading;
  if (source.kind === 'fallback') return t.taxisFallback(source.reason);
  return t.taxisRanked(source.estimator === null ? null : (t.estimators[source.estimator] ?? source.estimator));
}
