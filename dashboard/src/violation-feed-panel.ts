import { lazyStreetLine, type PlacesClient } from './address-lookup.js';
import {
  type Pack,
  type ViolationFilters,
  type ViolationItem,
  violationConfidences,
  violationStatuses,
} from './api-types.js';
import { element, valueElement } from './dom.js';
import { packLabel } from './format.js';
import { zoneName } from './legal-time.js';
import { violationBadges } from './violation-badges.js';
import { confidenceLabels, feedTimeLabel, penaltyLabel, placeKindLabel, statusLabels } from './violation-format.js';
import { violationMessages } from './violation-messages.js';
import type { ViolationChange, ViolationStore } from './violation-store.js';
import { feedPageSize, type SyncState } from './violation-sync.js';

export interface ViolationFeedOptions {
  store: ViolationStore;
  now: () => number;
  onFiltersChange: (filters: ViolationFilters) => void;
  onOpen: (violationId: string) => void;
  /** Fetches the CSV for the filters and hands it to the browser; rejects with a message to show. */
  onExport: (filters: ViolationFilters) => Promise<void>;
  /** The signed-in client, for each row's street (looked up once the row is in view). */
  client?: () => PlacesClient | null;
}

/** How long a newly raised violation stays highlighted: long enough to catch the eye, not to linger. */
const highlightMs = 6000;

const t = violationMessages.feed;

const packs: readonly Pack[] = ['sp-fretamento', 'df-taxi', 'belem-taxi'];

interface Row {
  node: HTMLLIElement;
  item: ViolationItem;
}

/**
 * The live violations feed: newest first, filtered by pack, status and confidence, with the count
 * of open violations and a CSV export of what the filters select. Rows are keyed by violation id
 * and reused, so an `updated` push rewrites its row in place and a raised one is the only node
 * inserted (moving the others would restart the highlight and lose the reader's place).
 */
export class ViolationFeedPanel {
  private readonly openValue: HTMLElement;
  private readonly stateLine: HTMLElement;
  private readonly list: HTMLOListElement;
  private readonly exportButton: HTMLButtonElement;
  private readonly rows = new Map<string, Row>();
  private readonly highlighted = new Set<string>();
  private filters: ViolationFilters = {};
  private syncState: SyncState = { kind: 'idle' };
  private exportMessage: string | null = null;
  private framePending = false;

  constructor(
    container: HTMLElement,
    private readonly options: ViolationFeedOptions,
  ) {
    const heading = element('div', 'violations__heading');
    heading.append(element('h2', 'panel-heading', t.heading));
    const counter = element('div', 'violation-counter');
    counter.title = t.openCounter;
    this.openValue = element('span', 'violation-counter__value', '0');
    this.openValue.dataset.count = 'open-violations';
    counter.append(this.openValue, element('span', 'violation-counter__label', t.open));
    heading.append(counter);

    const filters = element('div', 'violation-filters');
    filters.append(
      this.filterSelect('pack', t.pack, packs, packLabel),
      this.filterSelect('status', t.status, violationStatuses, (status) => statusLabels[status]),
      this.filterSelect(
        'confidence',
        t.confidence,
        violationConfidences,
        (confidence) => confidenceLabels[confidence].filter,
      ),
    );
    this.exportButton = element('button', 'violation-export', t.export);
    this.exportButton.type = 'button';
    this.exportButton.title = t.exportHint;
    this.exportButton.addEventListener('click', () => this.export());
    filters.append(this.exportButton);

    this.stateLine = element('p', 'violations__state');
    this.stateLine.setAttribute('role', 'status');
    this.list = element('ol', 'violation-feed');
    this.list.setAttribute('aria-label', t.listLabel);
    this.list.setAttribute('aria-live', 'polite');

    container.replaceChildren(heading, filters, this.stateLine, this.list);
    options.store.subscribe((change) => this.onChange(change));
    this.render();
  }

  showSyncState(state: SyncState): void {
    this.syncState = state;
    this.scheduleRender();
  }

  private filterSelect<T extends string>(
    key: keyof ViolationFilters,
    label: string,
    values: readonly T[],
    describe: (value: T) => string,
  ): HTMLElement {
    const wrapper = element('label', 'violation-filter');
    wrapper.append(element('span', 'violation-filter__label', label));
    const select = element('select', 'violation-filter__select');
    select.name = key;
    select.append(new Option(t.any, ''));
    for (const value of values) select.append(new Option(describe(value), value));
    select.addEventListener('change', () => {
      const next: ViolationFilters = { ...this.filters };
      if (select.value === '') delete next[key];
      else Object.assign(next, { [key]: select.value });
      this.filters = next;
      this.options.onFiltersChange(next);
      this.render();
    });
    wrapper.append(select);
    return wrapper;
  }

  private async export(): Promise<void> {
    this.exportButton.disabled = true;
    this.exportButton.textContent = t.exporting;
    this.exportMessage = null;
    try {
      await this.options.onExport(this.filters);
    } catch (error) {
      this.exportMessage = t.exportFailed(error instanceof Error ? error.message : String(error));
    } finally {
      this.exportButton.disabled = false;
      this.exportButton.textContent = t.export;
      this.render();
    }
  }

  private onChange(change: ViolationChange): void {
    for (const id of change.raised) {
      this.highlighted.add(id);
      window.setTimeout(() => {
        this.highlighted.delete(id);
        this.rows.get(id)?.node.classList.remove('violation-row--new');
      }, highlightMs);
    }
    this.scheduleRender();
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
    const { store, now } = this.options;
    this.openValue.textContent = `${store.openCount().toLocaleString()}${this.syncState.kind === 'ready' && this.syncState.openTruncated ? '+' : ''}`;

    const items = store.list(this.filters, feedPageSize);
    this.stateLine.textContent = this.stateText(items.length);
    this.stateLine.hidden = this.stateLine.textContent === '';
    this.stateLine.dataset.state = this.exportMessage ? 'failed' : this.syncState.kind;

    const nowMs = now();
    const wanted = new Set(items.map((item) => item.id));
    for (const [id, row] of this.rows) {
      if (!wanted.has(id)) {
        row.node.remove();
        this.rows.delete(id);
      }
    }
    items.forEach((item, index) => {
      let row = this.rows.get(item.id);
      if (!row) {
        row = { node: element('li', 'violation-row'), item };
        row.node.dataset.violationId = item.id;
        this.fillRow(row.node, item, nowMs);
        if (this.highlighted.has(item.id)) row.node.classList.add('violation-row--new');
        this.rows.set(item.id, row);
      } else if (row.item !== item) {
        row.item = item;
        this.fillRow(row.node, item, nowMs);
      }
      const current = this.list.children[index];
      if (current !== row.node) this.list.insertBefore(row.node, current ?? null);
    });
  }

  private stateText(shown: number): string {
    if (this.exportMessage) return this.exportMessage;
    switch (this.syncState.kind) {
      case 'idle':
        return t.signIn;
      case 'loading':
        return shown === 0 ? t.loading : '';
      case 'failed':
        return t.failed(this.syncState.message);
      case 'ready':
        return shown === 0 ? t.noMatch : '';
    }
  }

  private fillRow(node: HTMLLIElement, item: ViolationItem, nowMs: number): void {
    node.dataset.status = item.status;
    node.dataset.confidence = item.confidence;
    const button = element('button', 'violation-row__open');
    button.type = 'button';
    button.addEventListener('click', () => this.options.onOpen(item.id));

    const top = element('span', 'violation-row__top');
    top.append(valueElement('code', 'rule-id', item.ruleId), ...violationBadges(item));

    const description = valueElement('span', 'violation-row__description', item.description || item.ruleId);
    description.lang = 'pt-BR';
    description.title = item.descriptionEn;
    description.dataset.valueTitle = '';
    const english = valueElement('span', 'violation-row__description-en', item.descriptionEn);
    english.lang = 'en';

    const meta = element('span', 'violation-row__meta');
    const plate = valueElement('span', 'violation-row__plate', item.plate ?? item.vehicleId);
    meta.append(plate);
    if (item.place) {
      const place = valueElement('span', 'violation-row__place', item.place.name);
      place.title = placeKindLabel(item.place.kind);
      meta.append(place);
    }
    const time = element('time', 'violation-row__time', feedTimeLabel(item.startedAt, item.pack, nowMs));
    time.dateTime = item.startedAt;
    time.title = t.timeHint(zoneName(item.pack, item.startedAt));
    meta.append(time);

    const penalty = element('span', 'violation-row__penalty', penaltyLabel(item.penalty));
    button.append(top, description, english, meta);
    const { client } = this.options;
    if (client && item.lat !== null && item.lon !== null) {
      button.append(lazyStreetLine(client, item.lat, item.lon, 'violation-row__street'));
    }
    button.append(penalty);
    node.replaceChildren(button);
  }
}
