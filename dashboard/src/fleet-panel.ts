import { element, setText } from './dom.js';
import { fleetMessages } from './fleet-messages.js';
import type { FleetStore } from './fleet-store.js';
import { formatNumber } from './legal-time.js';
import { statusStyles, type VehicleStatus, vehicleStatuses } from './vehicle-status.js';

const t = fleetMessages.panel;

/** Legend order: what a dispatcher scans for first. */
const legendOrder: readonly VehicleStatus[] = ['free', 'hired-1', 'hired-2', 'charter', 'other', 'offline'];

/**
 * Fleet counters and the map legend in one list: each status row shows its marker, what it means
 * and how many vehicles are in it right now.
 */
export class FleetPanel {
  private readonly totalValue: HTMLElement;
  private readonly onlineValue: HTMLElement;
  private readonly statusValues = new Map<VehicleStatus, HTMLElement>();
  private framePending = false;

  constructor(
    container: HTMLElement,
    private readonly store: FleetStore,
    offlineAfterS: number,
  ) {
    const totals = element('div', 'fleet-totals');
    this.totalValue = element('span', 'fleet-totals__value', '0');
    this.totalValue.dataset.count = 'total';
    this.onlineValue = element('span', 'fleet-totals__value', '0');
    this.onlineValue.dataset.count = 'online';
    totals.append(totalBlock(t.vehicles, this.totalValue), totalBlock(t.online, this.onlineValue));

    const legend = element('ul', 'legend');
    legend.setAttribute('aria-label', t.byStatus);
    for (const status of legendOrder) {
      const style = statusStyles[status];
      const row = element('li', 'legend__row');
      const swatch = element('span', `legend__swatch legend__swatch--${status}`);
      swatch.style.setProperty('--status-color', style.color);
      swatch.style.setProperty('--status-size', `${style.radiusPx * 2}px`);
      const text = element('span', 'legend__text');
      text.append(element('span', 'legend__label', style.label), element('span', 'legend__hint', style.description));
      const count = element('span', 'legend__count', '0');
      count.dataset.count = status;
      this.statusValues.set(status, count);
      row.append(swatch, text, count);
      legend.append(row);
    }

    const footnote = element('p', 'panel-footnote', t.offlineFootnote(formatWindow(offlineAfterS)));

    container.replaceChildren(
      element('h2', 'panel-heading', t.fleet),
      totals,
      element('h2', 'panel-heading', t.legend),
      legend,
      footnote,
    );
    store.subscribe(() => this.scheduleRender());
    this.render();
  }

  private scheduleRender(): void {
    if (this.framePending) return;
    this.framePending = true;
    requestAnimationFrame(() => {
      this.framePending = false;
      this.render();
    });
  }

  private render(): void {
    const counts = this.store.counts();
    setText(this.totalValue, formatNumber(counts.total));
    setText(this.onlineValue, formatNumber(counts.online));
    for (const status of vehicleStatuses) {
      const node = this.statusValues.get(status);
      if (node) setText(node, formatNumber(counts.byStatus[status]));
    }
  }
}

function totalBlock(label: string, value: HTMLElement): HTMLElement {
  const block = element('div', 'fleet-totals__block');
  block.append(value, element('span', 'fleet-totals__label', label));
  return block;
}

function formatWindow(seconds: number): string {
  return seconds % 60 === 0 && seconds >= 120 ? t.window(seconds / 60, 'min') : t.window(seconds, 's');
}
