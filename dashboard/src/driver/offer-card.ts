import type { Place } from '../dispatch-types.js';
import { element } from '../dom.js';
import { driverMessages as m } from './driver-messages.js';
import type { DriverOffer } from './driver-types.js';

export function placeText(place: Place): string {
  return place.address?.trim() ? place.address : m.noAddress(place.lat, place.lon);
}

/** Seconds left to answer, never negative, from the server-corrected clock. */
export function secondsLeft(offer: DriverOffer, nowMs: number): number {
  return Math.max(0, Math.ceil((Date.parse(offer.expiresAt) - nowMs) / 1000));
}

export interface OfferCardHandlers {
  onAccept(offer: DriverOffer): void;
  onDecline(offer: DriverOffer): void;
}

/**
 * The incoming offer, made to be read at arm's length and answered with a thumb: the pickup,
 * distance and ETA, a big countdown, and two full-width buttons.
 */
export class OfferCard {
  private offer: DriverOffer | null = null;
  private countdown: HTMLElement | null = null;
  private buttons: HTMLButtonElement[] = [];

  constructor(
    private readonly node: HTMLElement,
    private readonly handlers: OfferCardHandlers,
  ) {}

  get shown(): DriverOffer | null {
    return this.offer;
  }

  show(offer: DriverOffer, nowMs: number): void {
    if (this.offer?.id === offer.id) {
      this.tick(nowMs);
      return;
    }
    this.offer = offer;
    const title = element('h1', 'driver-offer__title', m.offerTitle);
    title.id = 'driver-offer-title';
    // A timer, not a live region: a screen reader announcing every second would drown the offer.
    const countdown = element('div', 'driver-offer__countdown');
    countdown.setAttribute('role', 'timer');
    const countdownNumber = element('span', 'driver-offer__seconds', String(secondsLeft(offer, nowMs)));
    countdown.append(countdownNumber, element('span', 'driver-offer__seconds-label', m.secondsLeft));
    this.countdown = countdownNumber;

    const facts = element('dl', 'driver-offer__facts');
    const fact = (label: string, value: string, className = '') => {
      const wrap = element('div', `driver-offer__fact ${className}`.trim());
      wrap.append(element('dt', undefined, label), element('dd', undefined, value));
      facts.append(wrap);
    };
    fact(m.pickup, placeText(offer.pickup), 'driver-offer__fact--pickup');
    fact(m.distance, offer.distanceM === null ? m.unknown : m.meters(offer.distanceM));
    fact(m.eta, offer.etaS === null ? m.unknown : m.minutes(offer.etaS));
    if (offer.dropoff) fact(m.dropoff, placeText(offer.dropoff), 'driver-offer__fact--wide');
    if (offer.passengers) fact(m.passengers(offer.passengers), '', 'driver-offer__fact--wide');
    if (offer.notes) fact(m.notes, offer.notes, 'driver-offer__fact--wide');

    const accept = element('button', 'driver-button driver-button--accept', m.accept);
    accept.type = 'button';
    accept.addEventListener('click', () => this.answer(accept, () => this.handlers.onAccept(offer)));
    const decline = element('button', 'driver-button driver-button--decline', m.decline);
    decline.type = 'button';
    decline.addEventListener('click', () => this.answer(decline, () => this.handlers.onDecline(offer)));
    this.buttons = [accept, decline];
    const actions = element('div', 'driver-offer__actions');
    actions.append(accept, decline);

    this.node.replaceChildren(title, countdown, facts, actions);
    this.node.hidden = false;
  }

  tick(nowMs: number): void {
    if (this.offer && this.countdown) this.countdown.textContent = String(secondsLeft(this.offer, nowMs));
  }

  /** One tap answers: both buttons wait for the server so a second tap cannot send the other answer. */
  private answer(button: HTMLButtonElement, send: () => void): void {
    for (const b of this.buttons) b.disabled = true;
    button.textContent = m.sending;
    send();
  }

  /** The answer failed but the offer is still open: the driver may try again. */
  enable(): void {
    for (const b of this.buttons) b.disabled = false;
    const [accept, decline] = this.buttons;
    if (accept) accept.textContent = m.accept;
    if (decline) decline.textContent = m.decline;
  }

  hide(): void {
    this.offer = null;
    this.countdown = null;
    this.buttons = [];
    this.node.replaceChildren();
    this.node.hidden = true;
  }
}
