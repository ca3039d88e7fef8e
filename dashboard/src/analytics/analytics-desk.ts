import type { Map as MapLibreMap } from 'maplibre-gl';
import type { ApiClient } from '../api-client.js';
import { element } from '../dom.js';
import { isRegulatorOrAdmin, onViewerChange, type Viewer } from '../viewer.js';
import './analytics.css';
import { AnalyticsApi } from './analytics-api.js';
import { analyticsMessages as m } from './analytics-messages.js';
import { type AnalyticsPageId, analyticsPages } from './analytics-types.js';
import type { PageContext } from './analytics-view.js';

type Pages = typeof import('./analytics-pages.js');
let pages: Promise<Pages> | null = null;
/** The pages and their charts, fetched once, when the first page opens. */
function loadPages(): Promise<Pages> {
  pages ??= import('./analytics-pages.js');
  return pages;
}

/**
 * The regulator's analytics desk: `#analytics/<page>` (and `#analytics/<operators|vehicles>/<id>`
 * for one record). A route of the same page, like `#dispatch`: its panel takes the place of the
 * fleet and violations panels, and the map shows only beside the heat map page, which draws on
 * it. Moving between pages changes the hash and swaps the page without reloading.
 *
 * Shown to regulators and the admin (the API answers 403 to every other role for the fleet-wide
 * figures; an operator may read its own record through the API, but the desk is the regulator's).
 */
export function isAnalyticsRoute(): boolean {
  return /^analytics(\/|$)/.test(routePath(window.location.hash));
}

/**
 * The path part of the hash: other parameters may share it (`&token=…` until it is taken, which
 * re-encodes the rest as `analytics%2Foccupancy=`).
 */
function routePath(hash: string): string {
  let text = hash.replace(/^#/, '');
  try {
    text = decodeURIComponent(text);
  } catch {
    // A malformed escape: read the hash as it is.
  }
  return text.split(/[&=]/)[0] ?? '';
}

export interface AnalyticsRoute {
  page: AnalyticsPageId;
  /** The operator or vehicle of a record page. */
  id: string | null;
}

export function parseAnalyticsRoute(hash: string): AnalyticsRoute {
  const [, page, id] = routePath(hash).split('/');
  const known = analyticsPages.find((p) => p === page);
  return { page: known ?? 'occupancy', id: known && id ? id : null };
}

export const analyticsHref = (page: AnalyticsPageId) => `#analytics/${page}`;

export interface AnalyticsDeskOptions {
  client: () => ApiClient | null;
  now: () => number;
  onUnauthorized: () => void;
  /** The desk's map, once its style has loaded: the heat map page draws on it. */
  map: Promise<MapLibreMap>;
  /** Called when the map is shown or hidden, so it can take its new size. */
  onMapShown: () => void;
}

export class AnalyticsDesk {
  readonly root = element('section', 'analytics');
  private readonly nav = element('nav', 'analytics-nav');
  private readonly host = element('div', 'analytics-host');
  private unmount: (() => void) | null = null;
  private options: AnalyticsDeskOptions | null = null;
  private allowed: boolean | null = null;
  /** Counts page openings, so a page whose code arrives late does not replace a newer one. */
  private shown = 0;

  constructor(layout: HTMLElement) {
    document.body.classList.add('analytics-mode');
    this.root.id = 'analytics';
    this.root.setAttribute('aria-label', m.title);
    this.nav.setAttribute('aria-label', m.navLabel);
    const list = element('ul', 'analytics-nav__list');
    for (const page of analyticsPages) {
      const item = element('li');
      const link = element('a', 'analytics-nav__link', m.pages[page]);
      link.href = analyticsHref(page);
      link.dataset.page = page;
      item.append(link);
      list.append(item);
    }
    this.nav.append(list);
    this.root.append(element('h1', 'analytics__title', m.title), this.nav, this.host);
    layout.prepend(this.root);
    this.host.append(element('p', 'analytics-state', m.signInFirst));
    this.markCurrent();
    window.addEventListener('hashchange', () => {
      if (!isAnalyticsRoute()) return;
      this.markCurrent();
      if (this.allowed) void this.show(true);
    });
  }

  /** Once signed in: pages load with the session's client, and follow who is signed in. */
  start(options: AnalyticsDeskOptions): void {
    this.options = options;
    onViewerChange((viewer) => this.onViewer(viewer));
  }

  private onViewer(viewer: Viewer | null): void {
    const allowed = viewer !== null && isRegulatorOrAdmin();
    if (allowed === this.allowed) return;
    this.allowed = allowed;
    if (allowed) {
      void this.show(false);
      return;
    }
    this.close();
    this.host.replaceChildren(element('p', 'analytics-state', viewer === null ? m.signInFirst : m.notAllowed));
  }

  private context(): PageContext {
    const options = this.options;
    return {
      api: () => {
        const client = options?.client() ?? null;
        return client === null ? null : new AnalyticsApi(client);
      },
      now: () => options?.now() ?? Date.now(),
      onUnauthorized: () => options?.onUnauthorized(),
    };
  }

  /** Opens the page the address names; `focus`: a page switch, so its heading takes the focus. */
  private async show(focus: boolean): Promise<void> {
    const options = this.options;
    if (options === null) return;
    this.close();
    const route = parseAnalyticsRoute(window.location.hash);
    const page = element('div', 'analytics-page-host');
    page.dataset.page = route.page;
    this.host.replaceChildren(page);
    const shown = ++this.shown;
    let loaded: Pages;
    try {
      loaded = await loadPages();
    } catch (error) {
      // The chunk could not be fetched (the server was updated, the network dropped): say so.
      page.append(element('p', 'analytics-state', m.failed(String(error))));
      return;
    }
    // Another page was asked for while this one's code was loading.
    if (shown !== this.shown) return;
    const context = this.context();
    const withMap = route.page === 'violation-heat';
    document.body.classList.toggle('analytics-map-shown', withMap);
    options.onMapShown();
    switch (route.page) {
      case 'occupancy':
        this.unmount = loaded.mountOccupancyPage(page, context);
        break;
      case 'fleet-sizing':
        this.unmount = loaded.mountFleetSizingPage(page, context);
        break;
      case 'authorization-shares':
        this.unmount = loaded.mountAuthorizationSharesPage(page, context);
        break;
      case 'operators':
      case 'vehicles':
        this.unmount = loaded.mountRecordPage(page, context, route.page, route.id);
        break;
      case 'violation-heat':
        this.unmount = loaded.mountViolationHeatPage(page, context, options.map);
        break;
    }
    if (focus) page.querySelector<HTMLElement>('.analytics-page__heading')?.focus();
  }

  private close(): void {
    document.body.classList.remove('analytics-map-shown');
    this.unmount?.();
    this.unmount = null;
  }

  private markCurrent(): void {
    const { page } = parseAnalyticsRoute(window.location.hash);
    for (const link of this.nav.querySelectorAll<HTMLAnchorElement>('.analytics-nav__link')) {
      if (link.dataset.page === page) link.setAttribute('aria-current', 'page');
      else link.removeAttribute('aria-current');
    }
  }
}

export function mountAnalyticsDesk(layout: HTMLElement): AnalyticsDesk {
  return new AnalyticsDesk(layout);
}
