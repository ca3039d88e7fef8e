import type { LngLat, Map as MapLibreMap } from 'maplibre-gl';
import { type ApiClient, ApiError, UnauthorizedError } from './api-client.js';
import type { ReviewDecision, ViolationItem, ViolationStatus } from './api-types.js';
import { loadToken } from './auth-token.js';
import { element, valueElement } from './dom.js';
import type { FieldAlerts } from './field-alerts.js';
import { bearingDeg, byDistanceThenRecency, compassLabel, distanceLabel, distanceM, type LatLon } from './field-geo.js';
import type { FieldLayer } from './field-layer.js';
import { fieldMessages as t } from './field-messages.js';
import type { FleetStore } from './fleet-store.js';
import { reviewMessages } from './review-messages.js';
import { servedAreas } from './served-areas.js';
import { canReview, onViewerChange } from './viewer.js';
import { toViolationItem } from './violation-guards.js';
import type { ViolationInspector } from './violation-inspector.js';
import type { ViolationChange, ViolationStore } from './violation-store.js';

/** `#field` (alone or beside `token=`) opens the field view instead of the control-room layout. */
export function isFieldRoute(): boolean {
  return new URLSearchParams(window.location.hash.replace(/^#/, '')).has('field');
}

/** The panel's fixed parts; the inspector is given `list` and `detail` as its feed and detail containers. */
export interface FieldPanelElements {
  root: HTMLElement;
  list: HTMLElement;
  detail: HTMLElement;
}

/** Built before the map so the map's container already has its phone-sized height. */
export function mountFieldPanel(layout: HTMLElement): FieldPanelElements {
  document.body.classList.add('field-mode');
  const root = element('section', 'field-panel');
  root.id = 'field-panel';
  root.setAttribute('aria-label', t.title);
  root.lang = 'pt-BR';
  const list = element('div', 'field-list');
  const detail = element('div', 'field-detail');
  detail.hidden = true;
  root.append(list, detail);
  layout.append(root);
  return { root, list, detail };
}

export interface FieldViewOptions {
  map: MapLibreMap;
  elements: FieldPanelElements;
  fleet: FleetStore;
  violations: ViolationStore;
  inspector: ViolationInspector;
  layer: FieldLayer;
  alerts: FieldAlerts;
  client: () => ApiClient | null;
  onUnauthorized: () => void;
  /** Epoch ms on the server's clock. */
  now: () => number;
}

interface Place extends LatLon {
  label: string;
}

interface Row {
  item: ViolationItem;
  target: LatLon;
  live: boolean;
  distanceM: number;
  bearingDeg: number;
  startedMs: number;
}

/** Statuses the agent still acts on: open (confirm or dismiss) and confirmed (hand over the notice). */
const actionable: readonly ViolationStatus[] = ['open', 'confirmed'];
const radiusChoicesM = [1000, 2000, 5000, 20_000, 100_000] as const;
const defaultRadiusM = 5000;
const maxRows = 50;
/** Lines for more than this many vehicles only clutter a phone's map. */
const maxLines = 20;
const placeZoom = 13;
const bannerMs = 60_000;
const minimumReasonLength = 3;

const allowedFrom: Record<'confirm' | 'dismiss', readonly ViolationStatus[]> = {
  confirm: ['open'],
  dismiss: ['open', 'confirmed'],
};

/**
 * The field view for agents' phones: open violations near a reference point (the agent's GPS fix,
 * a tapped point or a city), nearest first, each with the vehicle's live position and a straight
 * line to it; the violation's detail and evidence through the shared inspector; confirm, dismiss
 * and the enforcement notice in one tap; and new violations in the area announced with a banner,
 * a chime and a system notification.
 */
export class FieldView {
  private place: Place | null = null;
  private radiusM = defaultRadiusM;
  private picking = false;
  /** The reference point follows the GPS (as opposed to a tapped point or a city). */
  private fromGps = false;
  private watchId: number | null = null;
  private rows: Row[] = [];
  /** What the list shows, to skip redrawing it; null forces the next render. */
  private signature: string | null = null;
  private frame = 0;
  private bannerTimer: number | undefined;
  private readonly status: HTMLElement;
  private readonly banner: HTMLElement;
  private readonly heading: HTMLElement;
  private readonly rowsNode: HTMLElement;
  private readonly actions: HTMLElement;
  private readonly go: HTMLElement;
  private readonly message: HTMLElement;
  private readonly alertButton: HTMLButtonElement;
  private readonly buttons = new Map<'confirm' | 'dismiss' | 'notify', HTMLButtonElement>();

  constructor(private readonly options: FieldViewOptions) {
    const { root, list, detail } = options.elements;

    const controls = element('div', 'field-controls');
    const placeRow = element('div', 'field-controls__row');
    const locate = button('field-button field-button--primary', t.useMyLocation, () => this.locate());
    locate.dataset.action = 'locate';
    const pick = button('field-button', t.pickOnMap, () => this.startPicking());
    pick.dataset.action = 'pick';
    placeRow.append(locate, pick);
    const cityRow = element('div', 'field-controls__row');
    for (const area of servedAreas) {
      const city = button('field-button field-button--small', area.label, () => {
        const [lon, lat] = area.center as [number, number];
        this.stopWatching();
        this.fromGps = false;
        this.setPlace({ lat, lon, label: t.placeCity(area.label) });
      });
      city.dataset.city = area.id;
      city.dataset.value = '';
      cityRow.append(city);
    }
    const radius = element('select', 'field-radius');
    radius.name = 'radius';
    radius.setAttribute('aria-label', t.radiusLabel);
    for (const metres of radiusChoicesM) {
      const option = element('option', undefined, t.radiusOption(distanceLabel(metres)));
      option.value = String(metres);
      option.selected = metres === defaultRadiusM;
      radius.append(option);
    }
    radius.addEventListener('change', () => {
      this.radiusM = Number(radius.value);
      this.schedule(true);
    });
    cityRow.append(radius);
    this.alertButton = button('field-button field-button--alerts', t.enableAlerts, () => void this.enableAlerts());
    this.alertButton.dataset.action = 'alerts';
    this.status = element('p', 'field-status', t.noPlace);
    this.status.setAttribute('role', 'status');
    controls.append(placeRow, cityRow, this.alertButton, this.status);

    this.banner = element('div', 'field-banner');
    this.banner.setAttribute('role', 'alert');
    this.banner.hidden = true;

    this.heading = element('h2', 'field-heading');
    this.rowsNode = element('ol', 'field-rows');
    list.append(this.heading, this.rowsNode);

    this.actions = element('div', 'field-actions');
    this.actions.hidden = true;
    this.go = element('p', 'field-go');
    const buttonRow = element('div', 'field-actions__buttons');
    for (const decision of ['confirm', 'dismiss'] as const) {
      const action = button(`field-button field-button--${decision}`, t[decision], () => void this.review(decision));
      action.dataset.decision = decision;
      this.buttons.set(decision, action);
      buttonRow.append(action);
    }
    const notice = button('field-button field-button--notify', t.notify, () => void this.openNotice());
    notice.dataset.action = 'notice';
    this.buttons.set('notify', notice);
    buttonRow.append(notice);
    // Review and notice belong to the roles the API lets review (admin, regulators, enforcement).
    onViewerChange(() => {
      buttonRow.hidden = !canReview();
    });
    this.message = element('p', 'field-message');
    this.message.setAttribute('role', 'status');
    this.message.hidden = true;
    const frame = button('field-button field-button--small field-button--frame', t.showBoth, () => this.frameOpen());
    frame.dataset.action = 'frame';
    const note = element('div', 'field-note-row');
    note.append(element('p', 'field-note', t.straightLine), frame);
    this.actions.append(this.go, buttonRow, note, this.message);

    root.prepend(controls, this.banner);
    root.insertBefore(this.actions, detail);

    options.violations.subscribe((change) => this.onViolations(change));
    options.fleet.subscribe(() => this.schedule(false));
    // The inspector hides the detail on close (its back button, Escape): the action bar goes with it.
    new MutationObserver(() => this.syncOpen()).observe(detail, { attributes: true, attributeFilter: ['hidden'] });
    this.render();
    void this.locateIfAlreadyAllowed();
  }

  /** Main's map click handler asks first: while picking, a tap sets the reference point. */
  handleMapClick(lngLat: LngLat): boolean {
    if (!this.picking) return false;
    this.picking = false;
    this.options.elements.root.classList.remove('field-panel--picking');
    this.stopWatching();
    this.fromGps = false;
    this.setPlace({ lat: lngLat.lat, lon: lngLat.lng, label: t.placeMap }, false);
    return true;
  }

  private async locateIfAlreadyAllowed(): Promise<void> {
    // Asking for the position on page load is what browsers flag as abuse; reuse a grant already given.
    try {
      const permission = await navigator.permissions.query({ name: 'geolocation' });
      if (permission.state === 'granted') this.locate();
    } catch {
      // No Permissions API: wait for the tap.
    }
  }

  private locate(): void {
    if (!('geolocation' in navigator)) {
      this.say(t.locationDenied);
      return;
    }
    this.stopWatching();
    if (this.place === null) this.say(t.locating);
    this.watchId = navigator.geolocation.watchPosition(
      (position) => {
        // The camera moves to the first fix only: later fixes must not drag the map under the agent's finger.
        const first = !this.fromGps;
        this.fromGps = true;
        this.setPlace(
          {
            lat: position.coords.latitude,
            lon: position.coords.longitude,
            label: t.placeGps(position.coords.accuracy),
          },
          first,
        );
      },
      () => {
        this.stopWatching();
        this.say(t.locationDenied);
      },
      { enableHighAccuracy: true, maximumAge: 10_000, timeout: 20_000 },
    );
  }

  private stopWatching(): void {
    if (this.watchId !== null) navigator.geolocation.clearWatch(this.watchId);
    this.watchId = null;
  }

  private startPicking(): void {
    this.picking = true;
    this.options.elements.root.classList.add('field-panel--picking');
    this.say(t.pickHint);
  }

  private setPlace(place: Place, moveCamera = true): void {
    this.place = place;
    this.say(place.label);
    if (moveCamera && this.options.inspector.openId === null) {
      this.options.map.jumpTo({ center: [place.lon, place.lat], zoom: placeZoom });
    }
    this.schedule(true);
  }

  private async enableAlerts(): Promise<void> {
    const state = await this.options.alerts.enable();
    this.alertButton.textContent = t.alertsOn;
    this.alertButton.dataset.state = state;
    if (state === 'denied') this.say(t.alertsBlocked);
    if (state === 'unsupported') this.say(t.alertsUnsupported);
  }

  private onViolations(change: ViolationChange): void {
    for (const id of change.raised) this.announce(id);
    this.syncActions();
    this.schedule(true);
  }

  /** A violation raised in the agent's area: banner, chime, notification. */
  private announce(id: string): void {
    const place = this.place;
    const item = this.options.violations.get(id);
    if (place === null || item === undefined || !actionable.includes(item.status)) return;
    const row = this.rowFor(item, place);
    if (row === null || row.distanceM > this.radiusM) return;
    const distance = distanceLabel(row.distanceM);
    const bearing = compassLabel(row.bearingDeg);
    const body = t.arrivalBody(distance, bearing, item.plate ?? t.unknownPlate, item.description || item.ruleId);
    const text = element('p', 'field-banner__text');
    text.append(element('strong', undefined, t.arrivalTitle), element('span', undefined, body));
    const view = button('field-button field-button--small', t.view, () => {
      this.banner.hidden = true;
      this.open(id);
    });
    const close = button('field-banner__close', '×', () => {
      this.banner.hidden = true;
    });
    close.setAttribute('aria-label', t.closeBanner);
    this.banner.replaceChildren(text, view, close);
    this.banner.dataset.violationId = id;
    this.banner.dataset.sound = this.options.alerts.chime() ? 'played' : 'silent';
    this.banner.dataset.notification = this.options.alerts.notify(t.arrivalTitle, body, `violation-${id}`, () =>
      this.open(id),
    )
      ? 'shown'
      : this.options.alerts.notificationState;
    this.banner.hidden = false;
    window.clearTimeout(this.bannerTimer);
    this.bannerTimer = window.setTimeout(() => {
      this.banner.hidden = true;
    }, bannerMs);
  }

  private open(id: string): void {
    this.options.inspector.open(id);
    this.syncOpen();
  }

  private syncOpen(): void {
    const openId = this.options.elements.detail.hidden ? null : this.options.inspector.openId;
    this.options.elements.root.dataset.open = openId === null ? '' : openId;
    this.actions.hidden = openId === null;
    if (openId === null) this.message.hidden = true;
    this.syncActions();
    this.schedule(true);
  }

  /** The action bar follows the open violation's status and distance. */
  private syncActions(): void {
    const id = this.openViolationId();
    if (id === null) return;
    const item = this.options.violations.get(id);
    for (const decision of ['confirm', 'dismiss'] as const) {
      const action = this.buttons.get(decision);
      if (action) action.disabled = item === undefined || !allowedFrom[decision].includes(item.status);
    }
    const row = item && this.place ? this.rowFor(item, this.place) : null;
    this.go.textContent = row
      ? `${t.goThere(distanceLabel(row.distanceM), compassLabel(row.bearingDeg))} · ${row.live ? t.livePosition : t.recordedPosition}`
      : '';
  }

  /** The detail frames the evidence; this frames the way there: the agent and the vehicle together. */
  private frameOpen(): void {
    const id = this.openViolationId();
    const item = id === null ? undefined : this.options.violations.get(id);
    const place = this.place;
    const row = item && place ? this.rowFor(item, place) : null;
    if (row === null || place === null) return;
    this.options.map.fitBounds(
      [
        [Math.min(place.lon, row.target.lon), Math.min(place.lat, row.target.lat)],
        [Math.max(place.lon, row.target.lon), Math.max(place.lat, row.target.lat)],
      ],
      { padding: 40, maxZoom: 17, duration: 0 },
    );
  }

  private openViolationId(): string | null {
    return this.actions.hidden ? null : this.options.inspector.openId;
  }

  /** Confirm or dismiss: the reason is asked in a prompt so the decision stays one tap. */
  private async review(decision: 'confirm' | 'dismiss'): Promise<void> {
    const id = this.openViolationId();
    const api = this.options.client();
    if (id === null) return;
    if (api === null) return this.tell(t.notSignedIn, 'error');
    const reason = window.prompt(t.reasonPrompt(t[decision]))?.trim();
    if (reason === undefined) return;
    if (reason.length < minimumReasonLength) return this.tell(t.reasonTooShort, 'error');
    // A dismissal issues no notice: asked once more, as the desk's review form does.
    if (
      decision === 'dismiss' &&
      !window.confirm(`${reviewMessages.confirmDismissQuestion}\n\n${reviewMessages.confirmDismissDetail}`)
    )
      return;
    this.setBusy(true);
    this.tell(t.sending, 'pending');
    try {
      const updated = toViolationItem(await api.reviewViolation(id, decision as ReviewDecision, reason));
      if (updated) this.options.violations.applyReviewed(updated);
      this.tell(t.recorded(t[decision]), 'done');
    } catch (error) {
      if (error instanceof UnauthorizedError) this.options.onUnauthorized();
      this.tell(t.refused(describe(error)), 'error');
    } finally {
      this.setBusy(false);
    }
  }

  /**
   * The enforcement notice (`GET /v1/violations/:id/notice.pdf`) needs the Authorization header,
   * so it cannot be a plain link: the tab is opened during the tap (later, a popup blocker would
   * stop it) and given the fetched PDF as a Blob URL.
   */
  private async openNotice(): Promise<void> {
    const id = this.openViolationId();
    const token = loadToken();
    if (id === null) return;
    if (token === null) return this.tell(t.notSignedIn, 'error');
    const tab = window.open('', '_blank');
    this.tell(t.noticeOpening, 'pending');
    try {
      const response = await fetch(`/v1/violations/${encodeURIComponent(id)}/notice.pdf`, {
        headers: { Authorization: `Bearer ${token}`, Accept: 'application/pdf' },
        signal: AbortSignal.timeout(30_000),
      });
      if (!response.ok) throw new Error(await errorMessage(response));
      const url = URL.createObjectURL(await response.blob());
      if (tab) tab.location.href = url;
      else window.location.assign(url);
      this.message.hidden = true;
      // The viewer reads the Blob at its own pace: free it once that is surely done.
      window.setTimeout(() => URL.revokeObjectURL(url), 60_000);
    } catch (error) {
      tab?.close();
      this.tell(t.noticeFailed(describe(error)), 'error');
    }
  }

  private setBusy(busy: boolean): void {
    for (const action of this.buttons.values()) action.disabled = busy;
    if (!busy) this.syncActions();
  }

  private tell(text: string, kind: 'error' | 'pending' | 'done'): void {
    this.message.textContent = text;
    this.message.dataset.kind = kind;
    this.message.hidden = false;
  }

  private say(text: string): void {
    this.status.textContent = text;
  }

  /** Fleet updates arrive many times a second: redraw at most once a frame, and only what changed. */
  private schedule(force: boolean): void {
    if (force) this.signature = null;
    if (this.frame !== 0) return;
    this.frame = window.requestAnimationFrame(() => {
      this.frame = 0;
      this.render();
    });
  }

  private rowFor(item: ViolationItem, place: LatLon): Row | null {
    const vehicle = this.options.fleet.get(item.vehicleId);
    const live = vehicle?.position ?? null;
    const recorded = item.lat === null || item.lon === null ? null : { lat: item.lat, lon: item.lon };
    // Where the vehicle is now matters to an agent going after it; where it broke the rule is the fallback.
    const target = live ?? recorded;
    if (target === null) return null;
    return {
      item,
      target,
      live: live !== null,
      distanceM: distanceM(place, target),
      bearingDeg: bearingDeg(place, target),
      startedMs: Date.parse(item.startedAt),
    };
  }

  private render(): void {
    const place = this.place;
    const openId = this.openViolationId();
    if (place === null) {
      this.rows = [];
      this.heading.textContent = '';
      this.rowsNode.replaceChildren();
      this.options.layer.show(null, []);
      return;
    }
    const rows: Row[] = [];
    for (const item of this.options.violations.list({}, Number.MAX_SAFE_INTEGER)) {
      if (!actionable.includes(item.status)) continue;
      const row = this.rowFor(item, place);
      if (row !== null && row.distanceM <= this.radiusM) rows.push(row);
    }
    rows.sort(byDistanceThenRecency);
    this.rows = rows.slice(0, maxRows);

    const lines = this.rows
      .slice(0, maxLines)
      .map((row) => ({ id: row.item.id, to: row.target, selected: row.item.id === openId }));
    const open = openId === null ? null : this.rows.find((row) => row.item.id === openId);
    if (open && !lines.some((line) => line.selected)) lines.push({ id: open.item.id, to: open.target, selected: true });
    this.options.layer.show(place, lines);
    this.syncActions();

    // Re-render the list only when what it shows changed (order, rounded distance, status, minute).
    const nowMs = this.options.now();
    const minutes = (row: Row) => Math.floor((nowMs - row.startedMs) / 60_000);
    const signature = this.rows
      .map((row) => `${row.item.id}:${distanceLabel(row.distanceM)}:${row.item.status}:${minutes(row)}`)
      .join('|');
    if (signature === this.signature) return;
    this.signature = signature;
    const radius = distanceLabel(this.radiusM);
    this.heading.textContent = this.rows.length === 0 ? t.nothingNear(radius) : t.listCount(this.rows.length, radius);
    this.rowsNode.replaceChildren(...this.rows.map((row) => this.renderRow(row, minutes(row))));
  }

  private renderRow(row: Row, minutes: number): HTMLElement {
    const { item } = row;
    const entry = element('li', 'field-row');
    entry.dataset.violationId = item.id;
    const tap = element('button', 'field-row__button');
    tap.type = 'button';
    tap.addEventListener('click', () => this.open(item.id));
    const top = element('span', 'field-row__top');
    const distance = element('strong', 'field-row__distance', distanceLabel(row.distanceM));
    distance.dataset.metres = String(Math.round(row.distanceM));
    top.append(
      distance,
      element('span', 'field-row__bearing', compassLabel(row.bearingDeg)),
      item.plate === null
        ? element('span', 'field-row__plate', t.unknownPlate)
        : valueElement('span', 'field-row__plate', item.plate),
      element('span', `field-row__status field-row__status--${item.status}`, t.status[item.status]),
    );
    const description = valueElement('span', 'field-row__description', item.description || item.ruleId);
    const meta = element('span', 'field-row__meta');
    const article = item.legalBasis[0];
    if (article) meta.append(valueElement('span', undefined, article), ' · ');
    meta.append(t.ago(Math.max(0, minutes)), ' · ', row.live ? t.livePosition : t.recordedPosition);
    tap.append(top, description, meta);
    entry.append(tap);
    return entry;
  }
}

function button(className: string, text: string, onClick: () => void): HTMLButtonElement {
  const node = element('button', className, text);
  node.type = 'button';
  node.addEventListener('click', onClick);
  return node;
}

async function errorMessage(response: Response): Promise<string> {
  try {
    const body: unknown = await response.json();
    if (typeof body === 'object' && body !== null && 'error' in body) {
      const error: unknown = body.error;
      if (typeof error === 'object' && error !== null && 'message' in error && typeof error.message === 'string') {
        return error.message;
      }
    }
  } catch {
    // Not JSON: the status line is all there is.
  }
  return `HTTP ${response.status}`;
}

function describe(error: unknown): string {
  if (error instanceof ApiError) return error.code ? `${error.message} (${error.code})` : error.message;
  if (error instanceof DOMException && error.name === 'TimeoutError') return t.timedOut;
  if (error instanceof Error) return error.message;
  return String(error);
}
