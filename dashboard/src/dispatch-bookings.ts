import { type Booking, type BookingStatus, closedStatuses } from './dispatch-types.js';

/** What changed, so the console can react to a transition (a booking that just expired beeps). */
export interface BookingChange {
  booking: Booking;
  /** Its status before this change; null when the console did not know it. */
  previous: BookingStatus | null;
  /** From the live channel (as opposed to a load or this desk's own request). */
  live: boolean;
}

/** Closed bookings kept in memory: the list shows the latest, the rest would only grow. */
const maxClosed = 50;

/**
 * The bookings the console knows, by id. A load replaces them (pushes missed while disconnected
 * are not replayed); pushes and this desk's own answers are applied one by one. A booking never
 * goes back from a closed status: an answer that raced a push and lost is ignored.
 */
export class BookingStore {
  private readonly bookings = new Map<string, Booking>();
  private readonly listeners = new Set<(changes: readonly BookingChange[]) => void>();

  subscribe(listener: (changes: readonly BookingChange[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get(id: string): Booking | undefined {
    return this.bookings.get(id);
  }

  all(): Booking[] {
    return [...this.bookings.values()];
  }

  replaceAll(bookings: readonly Booking[]): void {
    this.bookings.clear();
    for (const booking of bookings) this.bookings.set(booking.id, booking);
    this.prune();
    this.emit([]);
  }

  apply(booking: Booking, live: boolean): void {
    const known = this.bookings.get(booking.id);
    if (known && isClosed(known.status) && !isClosed(booking.status)) return;
    if (known && rank(booking) < rank(known)) return;
    this.bookings.set(booking.id, booking);
    this.prune();
    this.emit([{ booking, previous: known?.status ?? null, live }]);
  }

  clear(): void {
    this.bookings.clear();
    this.emit([]);
  }

  private prune(): void {
    const closed = this.all()
      .filter((booking) => isClosed(booking.status))
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt));
    for (const booking of closed.slice(maxClosed)) this.bookings.delete(booking.id);
  }

  private emit(changes: readonly BookingChange[]): void {
    for (const listener of this.listeners) listener(changes);
  }
}

function isClosed(status: BookingStatus): boolean {
  return closedStatuses.includes(status);
}

/**
 * How far a booking has come. It only moves forward: more offers made, more of them answered, then
 * accepted, arrived, on board, closed. Status alone is not enough (an offer that expires with
 * nobody next puts it back to pending), and the API sends no version, so of two versions the one
 * further on by these counts is the newer.
 */
function rank(booking: Booking): number {
  const phase: Record<BookingStatus, number> = {
    pending: 0,
    offered: 0,
    accepted: 1,
    arrived: 2,
    'on-board': 3,
    completed: 4,
    cancelled: 4,
    expired: 4,
  };
  const answered = booking.offers.filter((offer) => offer.response !== null).length;
  return booking.offers.length * 1_000_000 + answered * 1000 + phase[booking.status];
}
