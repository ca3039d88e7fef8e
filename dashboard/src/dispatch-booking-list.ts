import type { BookingStore } from './dispatch-bookings.js';
import { dispatchMessages as t } from './dispatch-messages.js';
import {
  activeStatuses,
  type Booking,
  type BookingStatus,
  clockDuration,
  closedStatuses,
  openOffer,
  remainingS,
  waitingStatuses,
} from './dispatch-types.js';
import { element, valueElement } from './dom.js';

export interface BookingListOptions {
  store: BookingStore;
  /** Epoch ms on the server's clock. */
  now: () => number;
  plateOf: (vehicleId: string) => string;
  onSelect: (id: string | null) => void;
}

const groups: ReadonlyArray<{ key: keyof typeof t.groups; statuses: readonly BookingStatus[] }> = [
  { key: 'waiting', statuses: waitingStatuses },
  { key: 'active', statuses: activeStatuses },
  { key: 'closed', statuses: closedStatuses },
];

/** Closed bookings listed: the latest only, the panel is for what still needs a hand. */
const closedShown = 15;
/** An offer this close to its end is drawn urgent. */
const urgentS = 5;

/**
 * The bookings by status: waiting for a taxi (oldest first: it has waited longest), being served,
 * and the latest closed. Each row shows its age and, while a taxi is being offered it, the offer's
 * countdown; `tick()` rewrites only the timers every second. The selection moves with ↑ ↓.
 */
export class BookingList {
  private selected: string | null = null;
  /** Row order as drawn, for ↑ ↓. */
  private order: string[] = [];
  private readonly body: HTMLElement;

  constructor(
    root: HTMLElement,
    private readonly options: BookingListOptions,
  ) {
    root.append(element('h2', 'panel-heading', t.listHeading));
    this.body = element('div', 'dispatch-list__body');
    root.append(this.body);
    options.store.subscribe(() => this.render());
    this.render();
  }

  get selectedId(): string | null {
    return this.selected;
  }

  select(id: string | null): void {
    if (id === this.selected) return;
    this.selected = id;
    for (const row of this.body.querySelectorAll<HTMLElement>('.dispatch-booking')) {
      const on = row.dataset.bookingId === id;
      row.classList.toggle('dispatch-booking--selected', on);
      row.setAttribute('aria-selected', String(on));
      if (on) row.scrollIntoView({ block: 'nearest' });
    }
    this.options.onSelect(id);
  }

  /** ↑ (-1) or ↓ (+1) through the rows as drawn; from nothing selected, the first row. */
  move(step: 1 | -1): void {
    if (this.order.length === 0) return;
    const at = this.selected === null ? -1 : this.order.indexOf(this.selected);
    const next = at === -1 ? 0 : Math.min(this.order.length - 1, Math.max(0, at + step));
    this.select(this.order[next] ?? null);
  }

  render(): void {
    const bookings = this.options.store.all();
    this.body.replaceChildren();
    this.order = [];
    for (const group of groups) {
      const members = bookings
        .filter((booking) => group.statuses.includes(booking.status))
        .sort((a, b) =>
          group.key === 'waiting' ? a.createdAt.localeCompare(b.createdAt) : b.createdAt.localeCompare(a.createdAt),
        )
        .slice(0, group.key === 'closed' ? closedShown : undefined);
      const section = element('section', 'dispatch-group');
      section.dataset.group = group.key;
      section.append(element('h3', 'dispatch-group__heading', `${t.groups[group.key]} (${members.length})`));
      const list = element('ol', 'dispatch-group__rows');
      list.setAttribute('role', 'listbox');
      for (const booking of members) {
        list.append(this.row(booking));
        this.order.push(booking.id);
      }
      section.append(list);
      this.body.append(section);
    }
    if (bookings.length === 0) this.body.append(element('p', 'dispatch-empty', t.listEmpty));
    if (this.selected !== null && !this.order.includes(this.selected)) this.select(null);
    this.tick();
  }

  /** Rewrites the timers in place: the rows themselves change only with the bookings. */
  tick(): void {
    const now = this.options.now();
    for (const node of this.body.querySelectorAll<HTMLElement>('[data-timer]')) {
      const booking = this.options.store.get(node.closest<HTMLElement>('.dispatch-booking')?.dataset.bookingId ?? '');
      if (!booking) continue;
      if (node.dataset.timer === 'age') {
        node.textContent = t.age(clockDuration((now - Date.parse(booking.createdAt)) / 1000));
        continue;
      }
      const offer = openOffer(booking);
      if (offer === null) continue;
      const left = remainingS(offer, now);
      const plate = this.options.plateOf(offer.vehicleId);
      node.textContent = left > 0 ? t.offerCountdown(plate, clockDuration(left)) : t.offerClosing(plate);
      node.dataset.remainingS = String(left);
      node.classList.toggle('dispatch-countdown--urgent', left <= urgentS);
    }
  }

  private row(booking: Booking): HTMLElement {
    const row = element('li', 'dispatch-booking');
    row.dataset.bookingId = booking.id;
    row.dataset.status = booking.status;
    row.setAttribute('role', 'option');
    const on = booking.id === this.selected;
    row.setAttribute('aria-selected', String(on));
    if (on) row.classList.add('dispatch-booking--selected');
    row.addEventListener('click', () => this.select(booking.id));

    const top = element('div', 'dispatch-booking__top');
    const status = element('span', `dispatch-status dispatch-status--${booking.status}`, t.status[booking.status]);
    top.append(
      status,
      booking.pickup.address
        ? valueElement('span', 'dispatch-booking__address', booking.pickup.address)
        : element('span', 'dispatch-booking__address', t.noPickupAddress),
    );
    const bottom = element('div', 'dispatch-booking__bottom');
    const age = element('span', 'dispatch-booking__age');
    age.dataset.timer = 'age';
    bottom.append(age, element('span', 'dispatch-booking__mode', t.modeBadge[booking.mode ?? 'auto']));
    if (booking.vehicleId)
      bottom.append(element('span', 'dispatch-booking__taxi', t.vehicle(this.options.plateOf(booking.vehicleId))));
    row.append(top, bottom);
    if (openOffer(booking)) {
      const countdown = element('div', 'dispatch-countdown');
      countdown.dataset.timer = 'offer';
      row.append(countdown);
    }
    return row;
  }
}
