import { alertStatusMessages as messages } from './alert-status-messages.js';
import { type AlertSubscriptionItem, type ApiClient, ApiError, UnauthorizedError } from './api-client.js';
import { element, valueElement } from './dom.js';
import { defaultTimeZone, timeInZone, timeZoneLabel } from './legal-time.js';

/** Failing is judged by the server over a 24 h window: a 30 s refresh is plenty. */
export const alertStatusRefreshMs = 30_000;

export interface AlertStatusPanelOptions {
  client: () => ApiClient | null;
  onUnauthorized: () => void;
}

/**
 * The desk layout's "Alertas" section: the caller's alert subscriptions, each with its target,
 * and a badge on those whose alerts have failed for the whole retry window. It stays hidden when
 * there is nothing to show: no subscriptions, or a role that may not read them (403).
 */
export class AlertStatusPanel {
  private readonly list: HTMLUListElement;
  private inFlight = false;

  constructor(
    private readonly container: HTMLElement,
    private readonly options: AlertStatusPanelOptions,
  ) {
    this.container.lang = 'pt-BR';
    this.container.setAttribute('aria-label', messages.heading);
    this.list = element('ul', 'alert-status__list');
    this.container.replaceChildren(element('h2', 'panel-heading', messages.heading), this.list);
    this.container.hidden = true;
    window.setInterval(() => void this.refresh(), alertStatusRefreshMs);
  }

  async refresh(): Promise<void> {
    const client = this.options.client();
    if (client === null) {
      this.container.hidden = true;
      return;
    }
    // A slow answer must not pile a second request behind it.
    if (this.inFlight) return;
    this.inFlight = true;
    try {
      this.render(await client.listAlertSubscriptions());
    } catch (error) {
      if (error instanceof UnauthorizedError) {
        this.container.hidden = true;
        this.options.onUnauthorized();
      } else if (error instanceof ApiError && error.status === 403) {
        // This role has no alert subscriptions to read: not an error, just nothing to show.
        this.container.hidden = true;
      } else {
        // A network hiccup: the last list stays, the next refresh tries again.
        console.warn('alert subscriptions could not be read', error);
      }
    } finally {
      this.inFlight = false;
    }
  }

  private render(items: readonly AlertSubscriptionItem[]): void {
    this.container.hidden = items.length === 0;
    this.list.replaceChildren(...items.map(renderItem));
  }
}

function renderItem(item: AlertSubscriptionItem): HTMLElement {
  const row = element('li', 'alert-status__item');
  row.dataset.subscriptionId = item.id;
  row.dataset.failing = String(item.failing);
  const text = element('span', 'alert-status__text');
  text.append(
    valueElement('span', 'alert-status__name', item.name),
    valueElement('span', 'alert-status__target', target(item)),
  );
  row.append(text);
  if (item.failing && item.failingSince !== null) {
    // An alert receiver belongs to no pack: Brazil's official clock, named.
    const since = `${timeInZone(item.failingSince, defaultTimeZone, 'date-time')} ${timeZoneLabel(defaultTimeZone, item.failingSince)}`;
    const badge = element('span', 'alert-status__badge', messages.failingSince(since));
    badge.title = messages.failingHint;
    row.append(badge);
  }
  return row;
}

/** The host of a webhook (its path and query may carry a secret) or the e-mail address. */
function target(item: AlertSubscriptionItem): string {
  if (item.email !== null) return item.email;
  if (item.url === null) return '';
  try {
    return new URL(item.url).host;
  } catch {
    return item.url;
  }
}
