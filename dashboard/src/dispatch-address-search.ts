import type { ApiClient } from './api-client.js';
import { type PlaceMatch, searchPlaces } from './dispatch-api.js';
import { dispatchMessages as t } from './dispatch-messages.js';
import type { Place } from './dispatch-types.js';
import { element } from './dom.js';

export interface AddressSearchOptions {
  client: () => ApiClient | null;
  /** The pickup changed (a suggestion taken, a map click, or the text edited away from it). */
  onPlace: (place: Place | null) => void;
}

/** Typing pauses this long before the registry is asked: one request per word, not per key. */
const debounceMs = 200;
const perKind = 6;
const minimumChars = 2;

let instances = 0;

/**
 * The pickup field: typing searches the imported stands and stops by name (`q=`, case and accents
 * ignored); ↓ ↑ move through the suggestions, Enter takes the highlighted one (the first, unless
 * moved), Escape closes them. A map click sets a pinned point instead. A combobox in the ARIA
 * sense, so screen readers follow the highlighted suggestion; the list is `aria-busy` from a key
 * until the answer to the text typed is shown.
 */
export class AddressSearch {
  readonly input: HTMLInputElement;
  private readonly list: HTMLUListElement;
  private readonly status: HTMLElement;
  private matches: PlaceMatch[] = [];
  private highlighted = -1;
  private timer: number | undefined;
  /** Answers to older queries are dropped when they arrive after newer ones. */
  private sequence = 0;
  private chosen: Place | null = null;

  constructor(
    container: HTMLElement,
    private readonly options: AddressSearchOptions,
  ) {
    const id = `dispatch-address-${++instances}`;
    const label = element('label', 'dispatch-label', t.addressLabel);
    label.htmlFor = id;
    this.input = element('input', 'dispatch-input dispatch-address');
    this.input.id = id;
    this.input.name = 'address';
    this.input.type = 'text';
    this.input.autocomplete = 'off';
    this.input.spellcheck = false;
    this.input.placeholder = t.addressPlaceholder;
    this.input.setAttribute('role', 'combobox');
    this.input.setAttribute('aria-autocomplete', 'list');
    this.input.setAttribute('aria-expanded', 'false');
    this.list = element('ul', 'dispatch-suggestions');
    this.list.id = `${id}-list`;
    this.list.setAttribute('role', 'listbox');
    this.list.hidden = true;
    this.input.setAttribute('aria-controls', this.list.id);
    this.status = element('p', 'dispatch-pickup');
    this.status.setAttribute('role', 'status');
    this.status.textContent = t.pickupMissing;
    const wrap = element('div', 'dispatch-address-wrap');
    wrap.append(this.input, this.list);
    container.append(label, wrap, this.status);

    this.input.addEventListener('input', () => this.onInput());
    this.input.addEventListener('keydown', (event) => this.onKey(event));
    // Later, so a click on a suggestion lands first; not if the field has the focus again by then
    // (F2 right after Escape), which would drop the search just typed.
    this.input.addEventListener('blur', () =>
      window.setTimeout(() => {
        if (document.activeElement !== this.input) this.close();
      }, 150),
    );
  }

  get place(): Place | null {
    return this.chosen;
  }

  get isOpen(): boolean {
    return !this.list.hidden;
  }

  /** A pin from the map: the address names the point, since no geocoder is available offline. */
  pin(lat: number, lon: number): void {
    this.take({ lat, lon, address: t.mapPin(lat, lon) });
  }

  reset(): void {
    this.chosen = null;
    this.input.value = '';
    this.close();
    this.status.textContent = t.pickupMissing;
    this.status.dataset.state = 'missing';
    this.options.onPlace(null);
  }

  private take(place: Place): void {
    this.chosen = place;
    this.input.value = place.address ?? '';
    this.close();
    this.status.textContent = t.pickupChosen(place.address ?? '');
    this.status.dataset.state = 'chosen';
    this.options.onPlace(place);
  }

  private onInput(): void {
    if (this.chosen !== null && this.input.value !== this.chosen.address) {
      this.chosen = null;
      this.status.textContent = t.pickupMissing;
      this.status.dataset.state = 'missing';
      this.options.onPlace(null);
    }
    window.clearTimeout(this.timer);
    const text = this.input.value.trim();
    if (text.length < minimumChars) {
      this.close();
      return;
    }
    // Busy from the key on, until the answer is shown: what is listed meanwhile is an older text's.
    this.list.setAttribute('aria-busy', 'true');
    this.timer = window.setTimeout(() => void this.search(text), debounceMs);
  }

  private async search(text: string): Promise<void> {
    const client = this.options.client();
    if (client === null) return;
    const sequence = ++this.sequence;
    // The place highlighted (↓ ↑) stays highlighted in the new answer if it is there: a dispatcher
    // who moved to a suggestion while the last keys' search was on its way keeps it.
    const kept = this.matches[this.highlighted]?.id;
    this.showMessage(t.searching);
    try {
      const matches = await searchPlaces(client, text, perKind);
      if (sequence !== this.sequence) return;
      this.matches = matches;
      const keptAt = kept === undefined ? -1 : matches.findIndex((m) => m.id === kept);
      this.highlighted = keptAt >= 0 ? keptAt : matches.length > 0 ? 0 : -1;
      this.renderMatches();
    } catch (error) {
      if (sequence === this.sequence)
        this.showMessage(t.refused(error instanceof Error ? error.message : String(error)));
    } finally {
      if (sequence === this.sequence) this.list.removeAttribute('aria-busy');
    }
  }

  /**
   * Enter with the suggestions open takes one (and does not submit the form); otherwise the
   * event goes on to the form. Only while open do ↓ ↑ belong to the field.
   */
  private onKey(event: KeyboardEvent): void {
    if (!this.isOpen) return;
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      event.stopPropagation();
      if (this.matches.length === 0) return;
      const step = event.key === 'ArrowDown' ? 1 : -1;
      this.highlighted = (this.highlighted + step + this.matches.length) % this.matches.length;
      this.renderMatches();
    } else if (event.key === 'Enter') {
      const match = this.matches[this.highlighted];
      if (!match) return;
      event.preventDefault();
      event.stopPropagation();
      this.takeMatch(match);
    } else if (event.key === 'Escape') {
      event.preventDefault();
      event.stopPropagation();
      this.close();
    }
  }

  private takeMatch(match: PlaceMatch): void {
    this.take({ lat: match.lat, lon: match.lon, address: match.name });
  }

  private renderMatches(): void {
    this.list.replaceChildren();
    if (this.matches.length === 0) {
      this.showMessage(t.noMatches);
      return;
    }
    this.matches.forEach((match, index) => {
      const item = element('li', 'dispatch-suggestion');
      item.id = `${this.list.id}-${index}`;
      item.setAttribute('role', 'option');
      item.dataset.placeId = match.id;
      const on = index === this.highlighted;
      item.setAttribute('aria-selected', String(on));
      if (on) this.input.setAttribute('aria-activedescendant', item.id);
      item.append(
        element('span', 'dispatch-suggestion__name', match.name),
        element('span', 'dispatch-suggestion__kind', match.kind === 'stand' ? t.suggestionStand : t.suggestionStop),
      );
      // mousedown, not click: the field's blur would close the list before a click lands.
      item.addEventListener('mousedown', (event) => {
        event.preventDefault();
        this.takeMatch(match);
      });
      this.list.append(item);
    });
    this.open();
  }

  private showMessage(text: string): void {
    this.list.replaceChildren(element('li', 'dispatch-suggestion dispatch-suggestion--message', text));
    this.matches = [];
    this.highlighted = -1;
    this.open();
  }

  private open(): void {
    this.list.hidden = false;
    this.input.setAttribute('aria-expanded', 'true');
  }

  /** Also drops a search still waiting or in flight: its answer would reopen the list after a choice. */
  private close(): void {
    window.clearTimeout(this.timer);
    this.sequence += 1;
    this.list.removeAttribute('aria-busy');
    this.list.hidden = true;
    this.input.setAttribute('aria-expanded', 'false');
    this.input.removeAttribute('aria-activedescendant');
  }
}
