import { type ApiClient, UnauthorizedError } from './api-client.js';
import { bookingCandidates } from './dispatch-api.js';
import { type Candidate, maxCandidates } from './dispatch-booking-detail.js';

/** Asked again this often while a booking waiting for a taxi is selected: taxis move, take fares, come online. */
const refreshMs = 3000;

/** Where the listed taxis come from: the server's ranking, nothing yet, or the straight-line fallback. */
export type CandidateSource =
  | { kind: 'server'; estimator: string | null }
  | { kind: 'loading' }
  | { kind: 'fallback'; reason: string };

export interface CandidateFeedOptions {
  client: () => ApiClient | null;
  onUnauthorized: () => void;
  /** An answer (or a failure) arrived for the booking followed: redraw. */
  onChange: () => void;
}

/**
 * The selected booking's taxis as the server ranks them (`GET /v1/bookings/:id/candidates`): the
 * order the automatic offers go in, with the server's ETA, and only taxis an assignment accepts.
 * Asked when a booking is selected, every few seconds, and on each booking event (one request at
 * a time; a change meanwhile asks once more after it). When the server fails, the console lists
 * the live fleet by straight line instead and says so (`current`).
 */
export class CandidateFeed {
  private bookingId: string | null = null;
  private answer: { items: Candidate[]; estimator: string | null } | null = null;
  private failure: string | null = null;
  private inFlight = false;
  private again = false;
  private timer: number | undefined;

  constructor(private readonly options: CandidateFeedOptions) {}

  /** Follows `bookingId` (null: none); a booking newly followed is asked at once. */
  follow(bookingId: string | null): void {
    if (bookingId === this.bookingId) return;
    this.bookingId = bookingId;
    this.answer = null;
    this.failure = null;
    window.clearInterval(this.timer);
    this.timer = undefined;
    if (bookingId === null) return;
    this.timer = window.setInterval(() => this.refresh(), refreshMs);
    this.refresh();
  }

  /** Asks again now (a booking changed: a taxi may have been taken or freed). */
  refresh(): void {
    if (this.bookingId === null) return;
    if (this.inFlight) {
      this.again = true;
      return;
    }
    void this.fetch(this.bookingId);
  }

  /** The taxis to list for the booking followed: the server's, or `fallback()` while the server fails. */
  current(fallback: () => Candidate[]): { candidates: Candidate[]; source: CandidateSource } {
    if (this.failure !== null) return { candidates: fallback(), source: { kind: 'fallback', reason: this.failure } };
    if (this.answer === null) return { candidates: [], source: { kind: 'loading' } };
    return { candidates: this.answer.items, source: { kind: 'server', estimator: this.answer.estimator } };
  }

  private async fetch(id: string): Promise<void> {
    const client = this.options.client();
    if (client === null) return;
    this.inFlight = true;
    try {
      const answer = await bookingCandidates(client, id, maxCandidates);
      // A late answer for a booking no longer selected is dropped.
      if (id !== this.bookingId) return;
      this.answer = {
        estimator: answer.estimator,
        items: answer.items.map((c) => ({
          id: c.vehicleId,
          plate: c.plate,
          lat: c.lat,
          lon: c.lon,
          distanceM: c.distanceM,
          etaS: c.etaS,
          basis: c.basis,
        })),
      };
      this.failure = null;
      this.options.onChange();
    } catch (error) {
      if (error instanceof UnauthorizedError) this.options.onUnauthorized();
      else if (id === this.bookingId) {
        this.failure = error instanceof Error ? error.message : String(error);
        this.options.onChange();
      }
    } finally {
      this.inFlight = false;
      if (this.again) {
        this.again = false;
        this.refresh();
      }
    }
  }
}
