import type { LngLatLike, Map as MapLibreMap } from 'maplibre-gl';
import { type ApiClient, ApiError, UnauthorizedError } from './api-client.js';
import type { ReviewDecision, ViolationDetail, ViolationItem } from './api-types.js';
import { element, valueElement } from './dom.js';
import type { EvidenceLayer } from './evidence-layer.js';
import { packLabel } from './format.js';
import { loadPlaceShape, type PlaceShape } from './place-geometry.js';
import { ReviewForm } from './review-form.js';
import type { VehicleLayer } from './vehicle-layer.js';
import { canReview, onViewerChange } from './viewer.js';
import { violationBadges } from './violation-badges.js';
import { type DetailContext, renderDetailBody } from './violation-detail-view.js';
import { placeKindLabel } from './violation-format.js';
import { toViolationItem } from './violation-guards.js';
import { violationMessages } from './violation-messages.js';
import type { ViolationChange, ViolationStore } from './violation-store.js';

const t = violationMessages.detail;

export interface ViolationInspectorOptions {
  map: MapLibreMap;
  /** The live feed: hidden while a violation is open, shown again on close. */
  feedContainer: HTMLElement;
  detailContainer: HTMLElement;
  store: ViolationStore;
  evidence: EvidenceLayer;
  vehicles: VehicleLayer;
  /** The signed-in client, or null before sign-in. */
  client: () => ApiClient | null;
  operatorName: (operatorId: string | null) => string;
  /** A request was refused for the token. */
  onUnauthorized: () => void;
}

interface OpenState {
  id: string;
  detail: ViolationDetail | null;
  place: DetailContext['place'];
  /** `kind:id` of the place drawn, so a grown event does not fetch its stop again. */
  placeKey: string | null;
  placeShape: PlaceShape | null;
  header: HTMLElement;
  body: HTMLElement;
  review: ReviewForm;
  loading: boolean;
  /** A push arrived while loading: load again once this load ends. */
  stale: boolean;
}

/**
 * Opening a violation: the detail replaces the feed in the side panel, the map shows its evidence
 * and fits it, and the fleet fades behind it. While open, pushes about it refresh the detail
 * (a growing event extends its trace) without moving the camera the officer may have adjusted.
 * Closing restores the feed, the fleet and the view from before.
 */
export class ViolationInspector {
  private state: OpenState | null = null;
  private savedCamera: { center: LngLatLike; zoom: number } | null = null;
  private generation = 0;

  constructor(private readonly options: ViolationInspectorOptions) {
    options.store.subscribe((change) => this.onStoreChange(change));
    onViewerChange(() => {
      if (this.state) this.state.review.node.hidden = !canReview();
    });
    document.addEventListener('keydown', (event) => {
      if (event.key !== 'Escape' || this.state === null) return;
      if (event.target instanceof HTMLTextAreaElement || event.target instanceof HTMLInputElement) return;
      this.close();
    });
  }

  get openId(): string | null {
    return this.state?.id ?? null;
  }

  open(id: string): void {
    const { map, feedContainer, detailContainer, store, evidence, vehicles } = this.options;
    if (this.state?.id === id) return;
    if (this.state === null) this.savedCamera = { center: map.getCenter(), zoom: map.getZoom() };
    const item = store.get(id);

    const back = element('button', 'detail-back', t.back);
    back.type = 'button';
    back.addEventListener('click', () => this.close());
    const header = element('div', 'detail-header');
    const body = element('div', 'detail-body');
    const review = new ReviewForm(item?.status ?? 'open', (decision, reason) => this.review(id, decision, reason));
    const root = element('article', 'violation-detail');
    root.dataset.violationId = id;
    root.append(back, header, body, review.node);
    // Only the roles the API lets review see the form (admin, regulators, enforcement).
    review.node.hidden = !canReview();
    detailContainer.replaceChildren(root);

    this.state = {
      id,
      detail: null,
      place: null,
      placeKey: null,
      placeShape: null,
      header,
      body,
      review,
      loading: false,
      stale: false,
    };
    this.renderHeader(item ?? null);
    this.renderBody(item ?? null);
    feedContainer.hidden = true;
    detailContainer.hidden = false;
    detailContainer.scrollTop = 0;
    back.focus();
    evidence.clear();
    vehicles.setDimmed(true);
    void this.load(true);
  }

  close(): void {
    const { map, feedContainer, detailContainer, evidence, vehicles } = this.options;
    if (this.state === null) return;
    const closedId = this.state.id;
    this.state = null;
    this.generation += 1;
    evidence.clear();
    vehicles.setDimmed(false);
    detailContainer.hidden = true;
    detailContainer.replaceChildren();
    feedContainer.hidden = false;
    if (this.savedCamera) map.easeTo({ ...this.savedCamera, duration: 400 });
    this.savedCamera = null;
    const row = feedContainer.querySelector(`[data-violation-id="${CSS.escape(closedId)}"] button`);
    if (row instanceof HTMLElement) row.focus();
  }

  private async load(fit: boolean): Promise<void> {
    const state = this.state;
    const api = this.options.client();
    if (state === null || api === null) return;
    const generation = ++this.generation;
    state.loading = true;
    state.stale = false;
    try {
      const detail = await api.getViolation(state.id);
      const placeKey = detail.place ? `${detail.place.kind}:${detail.place.id}` : null;
      if (placeKey !== state.placeKey) {
        state.placeKey = placeKey;
        state.placeShape = null;
        state.place = null;
        try {
          state.placeShape = await loadPlaceShape(api, detail);
          if (state.placeShape) state.place = { caption: state.placeShape.caption };
          else if (detail.place) state.place = { problem: t.placeNotDrawable(placeKindLabel(detail.place.kind)) };
        } catch (error) {
          if (error instanceof UnauthorizedError) throw error;
          state.place = {
            problem: t.placeFailed(
              detail.place ? placeKindLabel(detail.place.kind) : t.placeKindFallback,
              describe(error),
            ),
          };
        }
      }
      if (generation !== this.generation || this.state !== state) return;
      state.detail = detail;
      this.renderHeader(detail);
      this.renderBody(detail);
      state.review.setStatus(detail.status);
      this.options.evidence.show({
        pack: detail.pack,
        trace: detail.evidence.trace,
        samples: detail.evidence.samples,
        location: detail.lat === null || detail.lon === null ? null : { lat: detail.lat, lon: detail.lon },
        place: state.placeShape,
      });
      if (fit) this.options.evidence.fit();
    } catch (error) {
      if (generation !== this.generation || this.state !== state) return;
      if (error instanceof UnauthorizedError) this.options.onUnauthorized();
      this.showLoadError(describe(error));
    } finally {
      if (this.state === state) {
        state.loading = false;
        if (state.stale) void this.load(false);
      }
    }
  }

  private async review(id: string, decision: ReviewDecision, reason: string): Promise<void> {
    const api = this.options.client();
    if (api === null) throw new Error('Not signed in.');
    try {
      const updated = toViolationItem(await api.reviewViolation(id, decision, reason));
      // The server does not push reviews to other dashboards yet; this one at least shows its own at once.
      if (updated) this.options.store.applyReviewed(updated);
    } catch (error) {
      if (error instanceof UnauthorizedError) this.options.onUnauthorized();
      throw error;
    }
  }

  private onStoreChange(change: ViolationChange): void {
    const state = this.state;
    if (state === null || !change.updated.includes(state.id)) return;
    const item = this.options.store.get(state.id);
    if (item) {
      this.renderHeader(item);
      state.review.setStatus(item.status);
    }
    // Reload rather than patch: the trace, the review trail and the measured values may all have grown.
    if (state.loading) state.stale = true;
    else void this.load(false);
  }

  private renderHeader(violation: ViolationItem | null): void {
    const state = this.state;
    if (state === null) return;
    if (violation === null) {
      state.header.replaceChildren(element('h2', 'detail-title', t.title));
      return;
    }
    const title = element('h2', 'detail-title');
    title.append(valueElement('code', 'rule-id', violation.ruleId));
    const badges = element('div', 'detail-badges');
    badges.append(...violationBadges(violation), element('span', 'detail-pack', packLabel(violation.pack)));
    state.header.replaceChildren(title, badges);
  }

  private renderBody(violation: ViolationItem | ViolationDetail | null): void {
    const state = this.state;
    if (state === null) return;
    if (violation === null) {
      state.body.replaceChildren(element('p', 'detail-note', t.loading));
      return;
    }
    const context: DetailContext = {
      operatorName: this.options.operatorName,
      place: state.place,
      places: this.options.client(),
    };
    state.body.replaceChildren(...renderDetailBody(violation, context));
  }

  private showLoadError(message: string): void {
    const state = this.state;
    if (state === null) return;
    const problem = element('div', 'detail-error');
    problem.setAttribute('role', 'alert');
    const retry = element('button', 'detail-retry', t.retry);
    retry.type = 'button';
    retry.addEventListener('click', () => void this.load(true));
    problem.append(element('p', undefined, t.loadFailed(message)), retry);
    state.body.prepend(problem);
  }
}

function describe(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (error instanceof DOMException && error.name === 'TimeoutError') return t.timedOut;
  if (error instanceof Error) return error.message;
  return String(error);
}
