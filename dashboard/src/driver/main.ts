import 'maplibre-gl/dist/maplibre-gl.css';
import './driver.css';
import { ApiClient, ApiError, fetchDashboardConfig, UnauthorizedError } from '../api-client.js';
import { driverTokenKey, forgetToken, saveToken, takeTokenFromLocation } from '../auth-token.js';
import type { VigiaDebugHandle } from '../debug-handle.js';
import type { OfferResponse } from '../dispatch-types.js';
import { requireElement } from '../dom.js';
import { applyDocumentLanguage } from '../i18n.js';
import type { ConnectionState } from '../live-connection.js';
import { offlineStyleUrl } from '../map-view.js';
import { ServerClock } from '../server-clock.js';
import { askForToken, setTokenDialogText } from '../token-dialog.js';
import { BookingPanel } from './booking-panel.js';
import { DriverConnection } from './driver-connection.js';
import { driverMessages as m } from './driver-messages.js';
import { type DriverBooking, type DriverOffer, isDriverBooking } from './driver-types.js';
import { OfferCard, secondsLeft } from './offer-card.js';
import { Tracker } from './tracker.js';
import { TrackerPanel } from './tracker-panel.js';

/** A booking the taxi is serving, or has just finished (kept on screen until dismissed). */
const shownBookingStatuses = new Set(['accepted', 'arrived', 'on-board', 'completed', 'cancelled']);
const servingStatuses = new Set(['accepted', 'arrived', 'on-board']);
const tickMs = 250;
const refusedRetryMs = 5000;

/**
 * The driver page (`/driver`): connects to `/driver` with the token of one of the taxi's devices,
 * shows each offer with a countdown and one-tap answers, then the accepted booking's pickup on a
 * map as it progresses; optionally the phone is the taxi's tracker.
 */
class DriverApp {
  private connection: DriverConnection | null = null;
  private api: ApiClient | null = null;
  private readonly offers = new Map<string, DriverOffer>();
  private booking: DriverBooking | null = null;
  private connectionState: ConnectionState = 'connecting';
  private readonly offerCard: OfferCard;
  private readonly bookingPanel: BookingPanel;
  private readonly tracker: Tracker;
  private readonly trackerPanel: TrackerPanel;
  private audio: AudioContext | null = null;
  private asking = false;
  /**
   * What the page held when the channel said `hello`: kept until `synced` unless sent again, since
   * it may have closed while the page was disconnected. Anything arriving after `hello` is current.
   */
  private unconfirmed: { offerIds: Set<string>; bookingId: string | null } | null = null;

  constructor(
    private readonly clock: ServerClock,
    styleUrl: string,
  ) {
    this.offerCard = new OfferCard(requireElement('#driver-offer', HTMLElement), {
      onAccept: (offer) => void this.answer(offer, 'accept'),
      onDecline: (offer) => void this.answer(offer, 'decline'),
    });
    this.bookingPanel = new BookingPanel(
      {
        root: requireElement('#driver-booking', HTMLElement),
        status: requireElement('#driver-booking-status', HTMLElement),
        details: requireElement('#driver-booking-details', HTMLElement),
        map: requireElement('#map', HTMLElement),
      },
      {
        styleUrl,
        onStyleFallback: () => undefined,
        onDone: () => {
          this.booking = null;
          this.render();
        },
      },
    );
    this.tracker = new Tracker({
      onStatus: (status) => this.trackerPanel?.showStatus(status),
      onUnauthorized: () => this.onRefused('INVALID_TOKEN'),
    });
    this.trackerPanel = new TrackerPanel(requireElement('#driver-tracker', HTMLElement), this.tracker);
    window.setInterval(() => this.tick(), tickMs);
    window.addEventListener('online', () => this.showNetwork());
    window.addEventListener('offline', () => this.showNetwork());
    // Browsers play sound only after a gesture: the first tap (the token form, a button) unlocks it.
    document.addEventListener('pointerdown', () => this.unlockAudio());
    document.addEventListener('keydown', () => this.unlockAudio());
    const waiting = requireElement('#driver-waiting', HTMLElement);
    const title = document.createElement('h1');
    title.textContent = m.waiting;
    const hint = document.createElement('p');
    hint.textContent = m.waitingHint;
    waiting.replaceChildren(title, hint);
    Object.defineProperty(window, 'vigia', {
      get: (): VigiaDebugHandle | undefined => {
        const map = this.bookingPanel.mapInstance;
        return map ? { map, vehicles: () => [], drawn: () => ({ vehicles: [], clusters: [] }) } : undefined;
      },
      configurable: false,
      enumerable: false,
    });
  }

  async start(initialToken: string | null, reason: string | null = null): Promise<void> {
    let token = initialToken;
    if (token === null) {
      this.asking = true;
      token = await askForToken(reason ?? m.tokenAsk);
      this.asking = false;
    }
    saveToken(token, driverTokenKey);
    this.api = new ApiClient(token, this.clock);
    this.tracker.setApi(this.api);
    this.connection?.close();
    this.connection = new DriverConnection(token, {
      onHello: (hello) => {
        const label = requireElement('#driver-vehicle', HTMLElement);
        if (!label.textContent) label.textContent = m.vehicle(hello.vehicleId);
        const serving = this.booking && servingStatuses.has(this.booking.status) ? this.booking.id : null;
        this.unconfirmed = { offerIds: new Set(this.offers.keys()), bookingId: serving };
        this.tracker.setIdentifier(hello.identifier);
      },
      onSynced: (synced) => {
        requireElement('#driver-vehicle', HTMLElement).textContent = m.vehicle(synced.plate ?? synced.vehicleId);
        const stale = this.unconfirmed;
        this.unconfirmed = null;
        if (stale === null) return;
        for (const id of stale.offerIds) if (!synced.offerIds.includes(id)) this.offers.delete(id);
        if (stale.bookingId !== null && this.booking?.id === stale.bookingId && synced.bookingId !== stale.bookingId) {
          // It ended while the page was away; it no longer belongs on screen.
          this.booking = null;
        }
        this.render();
      },
      onOffer: (offer) => {
        const isNew = !this.offers.has(offer.id);
        this.unconfirmed?.offerIds.delete(offer.id);
        this.offers.set(offer.id, offer);
        if (isNew && secondsLeft(offer, this.clock.now()) > 0) this.announce();
        this.render();
      },
      onOfferClosed: (id, response) => this.closeOffer(id, response),
      onBooking: (booking) => this.showBooking(booking),
      onStateChange: (state) => {
        this.connectionState = state;
        this.showNetwork();
      },
      onRefused: (code) => this.onRefused(code),
    });
    this.render();
  }

  private onRefused(code: string | null): void {
    const api = this.api;
    if (this.asking || api === null) return;
    // A dropped session or an unknown refusal: ask the API whether the token itself is gone.
    const check =
      code === 'INVALID_TOKEN' || code === 'FORBIDDEN' || code === 'VEHICLE_ID_REQUIRED'
        ? Promise.reject(new UnauthorizedError())
        : api.getJson('/v1/offers');
    check.then(
      () => window.setTimeout(() => this.connection?.retry(), refusedRetryMs),
      (error: unknown) => {
        if (!(error instanceof UnauthorizedError) && !(error instanceof ApiError && error.status === 403)) {
          window.setTimeout(() => this.connection?.retry(), refusedRetryMs);
          return;
        }
        this.signOut(m.tokenRefused);
      },
    );
  }

  /** Forgets the token (refused, or the phone now serves another taxi) and asks for one. */
  signOut(reason: string): void {
    if (this.asking) return;
    this.connection?.close();
    this.connection = null;
    this.api = null;
    this.tracker.setApi(null);
    this.tracker.setIdentifier(null);
    forgetToken(driverTokenKey);
    this.offers.clear();
    this.booking = null;
    requireElement('#driver-vehicle', HTMLElement).textContent = '';
    this.render();
    void this.start(null, reason);
  }

  private async answer(offer: DriverOffer, action: 'accept' | 'decline'): Promise<void> {
    const api = this.api;
    if (api === null) return;
    try {
      const result = await api.sendJson<unknown>('POST', `/v1/offers/${encodeURIComponent(offer.id)}/${action}`, {});
      this.offers.delete(offer.id);
      const booking = bookingIn(result);
      if (action === 'accept' && booking) this.showBooking(booking);
      else this.say(action === 'accept' ? m.offerClosed.accepted : m.offerClosed.declined);
      this.render();
    } catch (error) {
      if (error instanceof UnauthorizedError) {
        this.onRefused('INVALID_TOKEN');
        return;
      }
      if (error instanceof ApiError && (error.status === 404 || error.status === 409)) {
        this.offers.delete(offer.id);
        this.say(m.offerGone);
        this.render();
        return;
      }
      this.offerCard.enable();
      this.say(m.answerFailed(error instanceof Error ? error.message : String(error)));
    }
  }

  private closeOffer(id: string, response: OfferResponse): void {
    if (!this.offers.delete(id)) return;
    // The page's own answer already said so; an answer from the dispatcher or the clock is news.
    this.say(m.offerClosed[response]);
    this.render();
  }

  private showBooking(booking: DriverBooking): void {
    if (!shownBookingStatuses.has(booking.status)) return;
    // An end of a booking this page never showed (another phone of the taxi served it) is not news.
    if ((booking.status === 'completed' || booking.status === 'cancelled') && this.booking?.id !== booking.id) return;
    if (this.unconfirmed?.bookingId === booking.id) this.unconfirmed.bookingId = null;
    this.booking = booking;
    for (const [id, offer] of this.offers) if (offer.bookingId === booking.id) this.offers.delete(id);
    this.say(null);
    this.render();
  }

  /** Offers first (they expire), then the booking being served, else waiting. */
  private render(): void {
    const now = this.clock.now();
    const offer = [...this.offers.values()]
      .filter((o) => secondsLeft(o, now) > 0)
      .sort((a, b) => a.offeredAt.localeCompare(b.offeredAt))[0];
    if (offer) this.offerCard.show(offer, now);
    else this.offerCard.hide();
    if (this.booking && !offer) this.bookingPanel.show(this.booking);
    else this.bookingPanel.hide();
    requireElement('#driver-waiting', HTMLElement).hidden = offer !== undefined || this.booking !== null;
  }

  private tick(): void {
    const now = this.clock.now();
    let expired = false;
    for (const [id, offer] of this.offers) {
      if (secondsLeft(offer, now) === 0) {
        this.offers.delete(id);
        expired = true;
      }
    }
    if (expired) {
      this.say(m.offerClosed.expired);
      this.render();
    } else {
      this.offerCard.tick(now);
    }
  }

  private say(message: string | null): void {
    const node = requireElement('#driver-message', HTMLElement);
    node.textContent = message ?? '';
    node.hidden = message === null;
  }

  private showNetwork(): void {
    const label = requireElement('#driver-connection', HTMLElement);
    const banner = requireElement('#driver-offline', HTMLElement);
    const online = navigator.onLine;
    label.dataset.state = online ? this.connectionState : 'offline';
    label.textContent =
      this.connectionState === 'live'
        ? m.online
        : this.connectionState === 'connecting'
          ? m.connecting
          : m.reconnecting;
    const problem = !online ? m.offline : this.connectionState === 'reconnecting' ? m.reconnecting : null;
    banner.textContent = problem ?? '';
    banner.hidden = problem === null;
    document.body.classList.toggle('driver--offline', problem !== null);
  }

  private unlockAudio(): void {
    if (this.audio === null && typeof AudioContext !== 'undefined') this.audio = new AudioContext();
    void this.audio?.resume().catch(() => undefined);
  }

  /** A new offer: two short tones and a vibration, for a phone in a holder on the dashboard. */
  private announce(): void {
    navigator.vibrate?.([400, 150, 400]);
    const audio = this.audio;
    if (audio === null || audio.state !== 'running') return;
    for (const [startS, frequency] of [
      [0, 880],
      [0.25, 1175],
    ] as const) {
      const oscillator = audio.createOscillator();
      const gain = audio.createGain();
      oscillator.frequency.value = frequency;
      gain.gain.setValueAtTime(0.3, audio.currentTime + startS);
      gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + startS + 0.22);
      oscillator.connect(gain).connect(audio.destination);
      oscillator.start(audio.currentTime + startS);
      oscillator.stop(audio.currentTime + startS + 0.22);
    }
  }
}

/** The accept answer is the booking (or carries it): shown at once, before the channel's `booking`. */
function bookingIn(result: unknown): DriverBooking | null {
  if (isDriverBooking(result)) return result;
  if (typeof result === 'object' && result !== null && 'booking' in result && isDriverBooking(result.booking)) {
    return result.booking;
  }
  return null;
}

function fillStaticText(): void {
  applyDocumentLanguage();
  document.title = m.title;
  const set = (selector: string, text: string) => {
    requireElement(selector, HTMLElement).textContent = text;
  };
  setTokenDialogText({ title: m.tokenTitle, label: m.tokenLabel, hint: m.tokenHint, submit: m.tokenSubmit });
  set('#driver-connection', m.connecting);
  set('#driver-forget', m.forgetToken);
}

function registerServiceWorker(): void {
  if (!('serviceWorker' in navigator) || !window.isSecureContext) return;
  // Scoped to the driver page: the dashboard at `/` stays outside it.
  navigator.serviceWorker.register('/driver-sw.js', { scope: '/driver' }).catch(() => {
    // Without it the page still works online; only the offline start is lost.
  });
}

async function main(): Promise<void> {
  // Taken first so the token leaves the address bar even if anything below fails.
  const token = takeTokenFromLocation(driverTokenKey);
  fillStaticText();
  registerServiceWorker();
  const clock = new ServerClock();
  let styleUrl = offlineStyleUrl;
  try {
    styleUrl = (await fetchDashboardConfig(clock)).styleUrl;
  } catch {
    // Offline start (from the service worker's cache): the built-in map needs no network.
  }
  const app = new DriverApp(clock, styleUrl);
  requireElement('#driver-forget', HTMLButtonElement).addEventListener('click', () => app.signOut(m.tokenAsk));
  await app.start(token);
}

void main();
