import type { LngLat, Map as MapLibreMap } from 'maplibre-gl';
import { type ApiClient, UnauthorizedError } from './api-client.js';
import { assignBooking, cancelBooking, type DispatchOperator, listOperators, loadBookings } from './dispatch-api.js';
import { BookingDetail, type Candidate, candidatesFor } from './dispatch-booking-detail.js';
import { BookingForm } from './dispatch-booking-form.js';
import { BookingList } from './dispatch-booking-list.js';
import { type BookingChange, BookingStore } from './dispatch-bookings.js';
import { CandidateFeed } from './dispatch-candidates.js';
import { installDispatchKeys, renderKeyHelp } from './dispatch-keys.js';
import { dispatchMessages as t } from './dispatch-messages.js';
import { DispatchReportPanel } from './dispatch-report.js';
import { StandQueuePanel } from './dispatch-stand-queues.js';
import { DispatchTaxiLayer } from './dispatch-taxi-layer.js';
import { type Booking, closedStatuses, type Place, toBooking, waitingStatuses } from './dispatch-types.js';
import { element } from './dom.js';
import type { FieldAlerts } from './field-alerts.js';
import type { LatLon } from './field-geo.js';
import type { FleetStore } from './fleet-store.js';

/** `#dispatch` (alone or beside `token=`) opens the dispatch console instead of the control-room layout. */
export function isDispatchRoute(): boolean {
  return new URLSearchParams(window.location.hash.replace(/^#/, '')).has('dispatch');
}

export interface DispatchPanels {
  left: HTMLElement;
  right: HTMLElement;
}

/** Built before the map so the map's container already has its place between the two panels. */
export function mountDispatchPanels(layout: HTMLElement): DispatchPanels {
  document.body.classList.add('dispatch-mode');
  const left = element('aside', 'side-panel dispatch-panel');
  left.id = 'dispatch-panel';
  left.setAttribute('aria-label', t.title);
  left.lang = 'pt-BR';
  const right = element('aside', 'side-panel dispatch-side');
  right.id = 'dispatch-side';
  right.lang = 'pt-BR';
  layout.prepend(left);
  layout.append(right);
  return { left, right };
}

export interface DispatchConsoleOptions {
  panels: DispatchPanels;
  fleet: FleetStore;
  alerts: FieldAlerts;
  client: () => ApiClient | null;
  onUnauthorized: () => void;
  /** Epoch ms on the server's clock. */
  now: () => number;
}

const tickMs = 1000;
const focusZoom = 14;

/**
 * The dispatch console: a booking form and the bookings by status on the left, the selected
 * booking (offers, the taxis the server ranks for it to assign, cancel), stand queues and the
 * day's report on the right, pickups and those taxis on the map. Kept in step by the `/live` event `booking` and reloaded
 * on every reconnect; driven from the keyboard (dispatch-keys.ts).
 */
export class DispatchConsole {
  private readonly store = new BookingStore();
  private readonly list: BookingList;
  private readonly form: BookingForm;
  private readonly detail: BookingDetail;
  private readonly queues: StandQueuePanel;
  private readonly report: DispatchReportPanel;
  private readonly soundButton: HTMLButtonElement;
  private readonly banner: HTMLElement;
  private operators = new Map<string, DispatchOperator>();
  private layer: DispatchTaxiLayer | null = null;
  private map: MapLibreMap | null = null;
  private candidates: Candidate[] = [];
  private readonly feed: CandidateFeed;
  /** The pickup typed or pinned in the form, shown while no booking is selected. */
  private formPickup: Place | null = null;
  private fleetChanged = false;
  /** Pushes that arrive while a load is in flight are applied again over its answer. */
  private pending: Booking[] | null = null;

  constructor(private readonly options: DispatchConsoleOptions) {
    const { left, right } = options.panels;
    renderKeyHelp(left);
    this.soundButton = element('button', 'dispatch-button dispatch-button--small dispatch-sound', t.enableSound);
    this.soundButton.type = 'button';
    this.soundButton.addEventListener('click', () => void this.enableSound());
    this.banner = element('div', 'dispatch-banner');
    this.banner.setAttribute('role', 'alert');
    this.banner.hidden = true;
    left.append(this.soundButton, this.banner);

    this.form = new BookingForm(left, {
      client: options.client,
      onUnauthorized: options.onUnauthorized,
      onPickup: (place) => {
        this.formPickup = place;
        if (place) this.list.select(null);
        this.refreshFocus(true);
      },
      onCreated: (booking) => {
        this.store.apply(booking, false);
        this.list.select(booking.id);
      },
    });
    const listRoot = element('section', 'dispatch-list');
    left.append(listRoot);
    this.list = new BookingList(listRoot, {
      store: this.store,
      now: options.now,
      plateOf: (id) => this.plateOf(id),
      onSelect: () => {
        this.detail.dropConfirm();
        this.refreshFocus(true);
      },
    });

    const detailRoot = element('section', 'dispatch-selected');
    const queueRoot = element('section', 'dispatch-queue-panel');
    const reportRoot = element('section', 'dispatch-report');
    right.append(detailRoot, queueRoot, reportRoot);
    this.detail = new BookingDetail(detailRoot, {
      plateOf: (id) => this.plateOf(id),
      now: options.now,
      client: options.client,
      onAssign: (candidate) => void this.assign(candidate),
      onCancel: () => (this.detail.isConfirming ? void this.cancel() : this.askCancel()),
    });
    this.feed = new CandidateFeed({
      client: options.client,
      onUnauthorized: options.onUnauthorized,
      onChange: () => this.refreshFocus(false),
    });
    this.queues = new StandQueuePanel(queueRoot, { client: options.client, onUnauthorized: options.onUnauthorized });
    this.report = new DispatchReportPanel(reportRoot, {
      client: options.client,
      onUnauthorized: options.onUnauthorized,
    });

    this.store.subscribe((changes) => this.onBookings(changes));
    options.fleet.subscribe(() => {
      this.fleetChanged = true;
    });
    window.setInterval(() => this.tick(), tickMs);
    installDispatchKeys({
      newBooking: () => {
        this.list.select(null);
        this.form.focus();
      },
      move: (step) => {
        this.list.move(step);
        return true;
      },
      assign: (index) => {
        const candidate = this.candidates[index];
        if (!candidate) return false;
        void this.assign(candidate);
        return true;
      },
      cancel: () => this.askCancel(),
      confirm: () => {
        if (!this.detail.isConfirming) return false;
        void this.cancel();
        return true;
      },
      escape: () => this.detail.dropConfirm(),
      enableSound: () => void this.enableSound(),
    });
  }

  /** After sign-in: the caller's operators, the bookings, the stands for the queues, the report. */
  async start(): Promise<void> {
    const client = this.options.client();
    if (client === null) return;
    try {
      const operators = await listOperators(client);
      this.operators = new Map(operators.map((operator) => [operator.id, operator]));
      this.form.setOperators(operators);
    } catch (error) {
      this.failed(error);
    }
    await Promise.all([this.reload(), this.queues.load(), this.report.load()]);
    this.form.focus();
  }

  /** Connected again: pushes sent meanwhile are gone. */
  resync(): void {
    void this.reload();
  }

  /** One `/live` `booking` event. */
  applyLive(value: unknown): void {
    const booking = toBooking(value);
    if (booking === null) return;
    this.pending?.push(booking);
    this.store.apply(booking, true);
  }

  attachMap(map: MapLibreMap): void {
    this.map = map;
    this.layer = new DispatchTaxiLayer(map);
    this.refreshFocus(true);
  }

  /** Main's map click handler asks first: in the console a click pins the pickup. */
  handleMapClick(lngLat: LngLat): boolean {
    this.form.address.pin(lngLat.lat, lngLat.lng);
    return true;
  }

  private async reload(): Promise<void> {
    const client = this.options.client();
    if (client === null) return;
    this.pending = [];
    try {
      const bookings = await loadBookings(client);
      const missed = this.pending;
      this.pending = null;
      this.store.replaceAll(bookings);
      for (const booking of missed) this.store.apply(booking, false);
    } catch (error) {
      this.pending = null;
      this.failed(error);
    }
  }

  private onBookings(changes: readonly BookingChange[]): void {
    // A booking taken, freed or closed elsewhere may change whom the selected one can go to.
    if (changes.some((change) => change.live)) this.feed.refresh();
    if (changes.some((change) => change.previous === null || closedStatuses.includes(change.booking.status))) {
      this.report.refreshSoon();
    }
    for (const change of changes) {
      if (change.live && change.booking.status === 'expired' && change.previous !== 'expired') {
        this.announceExpired(change.booking);
      }
    }
    this.refreshFocus(false);
  }

  /** A booking nobody took: a sound (once unlocked by S or the button), a banner and a notification. */
  private announceExpired(booking: Booking): void {
    const text = t.expiredAlert(booking.pickup.address ?? t.noPickupAddress);
    this.banner.textContent = text;
    this.banner.dataset.bookingId = booking.id;
    this.banner.hidden = false;
    this.banner.dataset.sound = this.options.alerts.chime() ? 'played' : 'muted';
    this.options.alerts.notify(t.title, text, `booking-${booking.id}`, () => this.list.select(booking.id));
  }

  private async enableSound(): Promise<void> {
    await this.options.alerts.enable();
    this.soundButton.textContent = t.soundOn;
    this.soundButton.dataset.state = 'on';
  }

  private tick(): void {
    this.list.tick();
    this.detail.tick();
    if (this.fleetChanged) {
      this.fleetChanged = false;
      this.refreshFocus(false);
    }
  }

  private selected(): Booking | null {
    const id = this.list.selectedId;
    return id === null ? null : (this.store.get(id) ?? null);
  }

  /** Redraws the detail, the candidates on the map and the stand queues; `move` brings the pickup into view. */
  private refreshFocus(move: boolean): void {
    const booking = this.selected();
    const waiting = booking !== null && waitingStatuses.includes(booking.status);
    this.feed.follow(waiting ? booking.id : null);
    const { candidates, source } = waiting
      ? this.feed.current(() => candidatesFor(booking, this.options.fleet, this.operators.get(booking.operatorId)))
      : { candidates: [], source: { kind: 'loading' as const } };
    this.candidates = candidates;
    this.detail.render(booking, this.candidates, source);
    const focus: LatLon | null = booking ? booking.pickup : this.formPickup;
    this.queues.setFocus(focus);
    this.layer?.show({
      focus,
      taxis: this.candidates.map((taxi, index) =>
        source.kind === 'server' && taxi.etaS !== null
          ? { ...taxi, label: t.mapTaxiLabel(String(index + 1), taxi.etaS) }
          : taxi,
      ),
      pickups: this.store
        .all()
        .filter((other) => other.id !== booking?.id && !closedStatuses.includes(other.status))
        .map((other) => other.pickup),
    });
    if (move && focus && this.map) {
      this.map.easeTo({ center: [focus.lon, focus.lat], zoom: Math.max(this.map.getZoom(), focusZoom) });
    }
  }

  private askCancel(): boolean {
    const booking = this.selected();
    if (!booking || closedStatuses.includes(booking.status)) return false;
    this.detail.askCancel();
    return true;
  }

  private async cancel(): Promise<void> {
    const booking = this.selected();
    const client = this.options.client();
    this.detail.dropConfirm();
    if (!booking || client === null) return;
    this.detail.say(t.cancelling, 'pending');
    try {
      const answer = await cancelBooking(client, booking.id);
      if (answer) this.store.apply(answer, false);
      this.detail.say(t.cancelled, 'ok');
    } catch (error) {
      this.failed(error);
    }
  }

  private async assign(candidate: Candidate): Promise<void> {
    const booking = this.selected();
    const client = this.options.client();
    if (!booking || client === null) return;
    if (!waitingStatuses.includes(booking.status)) {
      this.detail.say(t.notAssignable, 'error');
      return;
    }
    this.detail.say(t.assigning, 'pending');
    try {
      const answer = await assignBooking(client, booking.id, candidate.id);
      if (answer) this.store.apply(answer, false);
      this.detail.say(t.assigned(candidate.plate), 'ok');
    } catch (error) {
      this.failed(error);
    }
  }

  private failed(error: unknown): void {
    if (error instanceof UnauthorizedError) {
      this.options.onUnauthorized();
      return;
    }
    this.detail.say(t.refused(error instanceof Error ? error.message : String(error)), 'error');
  }

  private plateOf(vehicleId: string): string {
    return this.options.fleet.get(vehicleId)?.plate ?? vehicleId;
  }
}
