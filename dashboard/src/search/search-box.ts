import type { ApiClient } from '../api-client.js';
import { element, valueElement } from '../dom.js';
import { searchMessages } from './search-messages.js';
import './search.css';

/** One result of `GET /v1/search` (api/src/search/README.md). */
export interface SearchItem {
  kind: 'vehicle' | 'operator' | 'driver' | 'stop' | 'stand';
  id: string;
  label: string;
  detail: string;
  lat?: number;
  lon?: number;
  operatorId?: string;
}

export interface SearchBoxOptions {
  /** The signed-in client; none: the box stays quiet. */
  client: () => ApiClient | null;
  /** A result was chosen (Enter or a click). */
  onChoose: (item: SearchItem) => void;
  onUnauthorized?: () => void;
}

/** Typing pauses this long before a request: one request per word, not per key. */
const debounceMs = 150;
const resultLimit = 12;
/** The API's bound on `q` (api/src/search/search-query.ts). */
const maxQueryLength = 100;

const t = searchMessages;

/** Where typing is already going: `/` there is a character, not the search shortcut. */
function isTypingTarget(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName);
}

/**
 * The top bar's search box, keyboard first: `/` focuses it (unless the user is typing in another
 * field), typing searches, ↑/↓ move through the results, Enter chooses, Esc closes the list (and a
 * second Esc leaves the box). A combobox with a listbox, as ARIA describes it, so screen readers
 * announce the active result.
 */
export class SearchBox {
  readonly input = element('input', 'search-box__input');
  private readonly list = element('ul', 'search-box__results');
  private readonly status = element('div', 'search-box__status');
  private items: SearchItem[] = [];
  private active = -1;
  private timer: number | undefined;
  /** Typed but not yet searched (the pause is running). */
  private pending = false;
  private inflight: Promise<void> = Promise.resolve();
  /** Answers to an older query than the latest are dropped: typing fast never shows stale results. */
  private sequence = 0;

  constructor(
    container: HTMLElement,
    private readonly options: SearchBoxOptions,
  ) {
    container.classList.add('search-box');
    const label = element('label', 'search-box__label', t.label);
    label.htmlFor = 'search-input';
    this.input.id = 'search-input';
    this.input.type = 'search';
    this.input.autocomplete = 'off';
    this.input.spellcheck = false;
    this.input.maxLength = maxQueryLength;
    this.input.placeholder = t.placeholder;
    this.input.title = t.shortcut;
    this.input.setAttribute('role', 'combobox');
    this.input.setAttribute('aria-expanded', 'false');
    this.input.setAttribute('aria-controls', 'search-results');
    this.input.setAttribute('aria-autocomplete', 'list');
    this.list.id = 'search-results';
    this.list.setAttribute('role', 'listbox');
    this.list.setAttribute('aria-label', t.results);
    this.list.hidden = true;
    this.status.setAttribute('role', 'status');
    this.status.hidden = true;
    const hint = element('kbd', 'search-box__hint', t.shortcutKey);
    hint.setAttribute('aria-hidden', 'true');
    container.append(label, this.input, hint, this.list, this.status);

    this.input.addEventListener('input', () => this.schedule());
    this.input.addEventListener('keydown', (event) => this.onKey(event));
    this.input.addEventListener('focus', () => {
      if (this.items.length > 0) this.showList(true);
    });
    // A click on a result lands after the blur: the list closes only once the click had its chance.
    this.input.addEventListener('blur', () => window.setTimeout(() => this.close(), 150));
    document.addEventListener('keydown', (event) => {
      if (event.key !== '/' || event.ctrlKey || event.metaKey || event.altKey) return;
      if (isTypingTarget(event.target)) return;
      event.preventDefault();
      this.input.focus();
      this.input.select();
    });
  }

  private schedule(): void {
    window.clearTimeout(this.timer);
    this.pending = true;
    this.timer = window.setTimeout(() => void this.run(), debounceMs);
  }

  private run(): Promise<void> {
    window.clearTimeout(this.timer);
    this.pending = false;
    this.inflight = this.search();
    return this.inflight;
  }

  private async search(): Promise<void> {
    const q = this.input.value.trim();
    const sequence = ++this.sequence;
    const client = this.options.client();
    if (q === '' || client === null) {
      this.render([], null);
      return;
    }
    this.showStatus(t.searching);
    try {
      const query = new URLSearchParams({ q, limit: String(resultLimit) });
      const answer = await client.getJson<{ items: SearchItem[] }>(`/v1/search?${query}`);
      if (sequence !== this.sequence) return;
      this.render(answer.items, answer.items.length === 0 ? t.noResults(q) : null);
    } catch (error) {
      if (sequence !== this.sequence) return;
      if (error instanceof Error && error.name === 'UnauthorizedError') this.options.onUnauthorized?.();
      this.render([], t.failed(error instanceof Error ? error.message : String(error)));
    }
  }

  private render(items: SearchItem[], message: string | null): void {
    this.items = items;
    this.active = items.length > 0 ? 0 : -1;
    this.list.replaceChildren(
      ...items.map((item, index) => {
        const option = element('li', 'search-box__result');
        option.id = `search-result-${index}`;
        option.setAttribute('role', 'option');
        option.dataset.kind = item.kind;
        option.dataset.id = item.id;
        option.append(
          element('span', 'search-box__kind', t.kinds[item.kind]),
          valueElement('span', 'search-box__label-text', item.label),
          valueElement('span', 'search-box__detail', item.detail),
        );
        // mousedown, not click: it comes before the input's blur closes the list.
        option.addEventListener('mousedown', (event) => {
          event.preventDefault();
          this.choose(index);
        });
        return option;
      }),
    );
    this.markActive();
    this.showList(items.length > 0);
    if (message === null) this.hideStatus();
    else this.showStatus(message);
  }

  private onKey(event: KeyboardEvent): void {
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      if (this.items.length === 0) return;
      event.preventDefault();
      const step = event.key === 'ArrowDown' ? 1 : -1;
      this.active = (this.active + step + this.items.length) % this.items.length;
      this.showList(true);
      this.markActive();
    } else if (event.key === 'Enter') {
      event.preventDefault();
      // Enter before the pause ran the search, or while it runs: the choice is among its results.
      const ready = this.pending ? this.run() : this.inflight;
      void ready.then(() => this.choose(this.active));
    } else if (event.key === 'Escape') {
      event.preventDefault();
      if (!this.list.hidden || !this.status.hidden) this.close();
      else this.input.blur();
    }
  }

  private choose(index: number): void {
    const item = this.items[index];
    if (!item) return;
    this.close();
    this.input.blur();
    this.options.onChoose(item);
  }

  private markActive(): void {
    for (const [index, option] of [...this.list.children].entries()) {
      const selected = index === this.active;
      option.setAttribute('aria-selected', String(selected));
      if (selected) option.scrollIntoView({ block: 'nearest' });
    }
    if (this.active >= 0) this.input.setAttribute('aria-activedescendant', `search-result-${this.active}`);
    else this.input.removeAttribute('aria-activedescendant');
  }

  private showList(shown: boolean): void {
    this.list.hidden = !shown;
    this.input.setAttribute('aria-expanded', String(shown));
  }

  private showStatus(message: string): void {
    this.status.textContent = message;
    this.status.hidden = false;
  }

  private hideStatus(): void {
    this.status.textContent = '';
    this.status.hidden = true;
  }

  close(): void {
    this.showList(false);
    this.hideStatus();
  }
}
