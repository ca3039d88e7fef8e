import type { Logger } from '@vigia/core';
import { HttpError } from '../api/http.js';
import type { Clock } from '../clock.js';
import type { SimTaxi } from '../fleet/fleet.js';
import { Random } from '../random.js';
import type { DispatchJob } from '../vehicles/taxi-behaviour.js';
import type { DispatchApi, OpenOffer } from './dispatch-api.js';

/** How the simulated drivers answer offers: shares of accepting and declining; the rest let the offer expire. */
export interface AnswerShares {
  accept: number;
  decline: number;
}
export const DEFAULT_ANSWER_SHARES: AnswerShares = { accept: 0.8, decline: 0.1 };

/** A driver reads the offer, glances at the map, taps: seconds, on the simulation's clock. */
export const ANSWER_DELAY_S: readonly [number, number] = [2, 8];

export type OfferDecision = { answer: 'accept' | 'decline'; afterMs: number } | { answer: 'ignore' };

/** What one driver does with one offer (a driver who cannot take it declines, see `OfferResponder`). */
export function decideOffer(rng: Random, shares: AnswerShares = DEFAULT_ANSWER_SHARES): OfferDecision {
  const roll = rng.next();
  const afterMs = Math.round(rng.range(ANSWER_DELAY_S[0], ANSWER_DELAY_S[1]) * 1000);
  if (roll < shares.accept) return { answer: 'accept', afterMs };
  if (roll < shares.accept + shares.decline) return { answer: 'decline', afterMs };
  return { answer: 'ignore' };
}

/** The booking a taxi is sent to, from the offer it accepts (or the booking it was assigned). */
export function jobOf(b: Pick<OpenOffer, 'bookingId' | 'pickup' | 'dropoff' | 'passengers'>): DispatchJob {
  return {
    bookingId: b.bookingId,
    pickup: { lat: b.pickup.lat, lon: b.pickup.lon },
    ...(b.dropoff ? { dropoff: { lat: b.dropoff.lat, lon: b.dropoff.lon } } : {}),
    ...(typeof b.passengers === 'number' ? { passengers: b.passengers } : {}),
  };
}

export interface ResponderStats {
  offersSeen: number;
  accepted: number;
  declined: number;
  /** Left to expire. */
  ignored: number;
  /** Answers the API refused because the offer had closed meanwhile. */
  closed: number;
  /** Bookings called off while the taxi was on its way. */
  dropped: number;
}

export interface OfferResponderOptions {
  api: Pick<DispatchApi, 'openOffers' | 'answer' | 'booking'>;
  /** Token that lists every offer of the simulated fleet (the admin's): one request a round, not one per taxi. */
  listToken: string;
  /** The token a taxi answers with: one of its own devices'; undefined: the list token's holder answers for it. */
  answerToken(vehicleId: string): string | undefined;
  taxi(vehicleId: string): SimTaxi | undefined;
  clock: Clock;
  rng: Random;
  log: Logger;
  shares?: AnswerShares;
}

/** How often a booking a taxi is driving to is looked at again (cancelled meanwhile?), simulated ms. */
const RECHECK_MS = 10_000;

/**
 * Answers the offers made to the simulated taxis, as their drivers would: most accepted, some
 * declined, some left to expire, each after a human delay; a driver who has meanwhile taken a
 * passenger, gone home or already has a booking declines. A taxi that accepts is sent to the
 * pickup (TaxiBehaviour.acceptBooking) before its answer goes out, so it never holds a booking it
 * cannot serve; if the offer closed meanwhile it goes back to work. `round()` is one poll.
 */
export class OfferResponder {
  readonly stats: ResponderStats = { offersSeen: 0, accepted: 0, declined: 0, ignored: 0, closed: 0, dropped: 0 };
  private readonly decided = new Map<string, { offer: OpenOffer; decision: OfferDecision; dueMs: number }>();
  /** Bookings a simulated taxi accepted and has not yet picked up: booking id → vehicle, next check. */
  private readonly serving = new Map<string, { vehicleId: string; checkAtMs: number }>();

  private readonly answerSeed: number;

  constructor(private readonly o: OfferResponderOptions) {
    this.answerSeed = o.rng.next();
  }

  async round(): Promise<void> {
    const offers = await this.o.api.openOffers(this.o.listToken);
    const now = this.o.clock.now();
    const open = new Set<string>();
    for (const offer of offers) {
      open.add(offer.id);
      if (this.decided.has(offer.id)) continue;
      const taxi = this.o.taxi(offer.vehicleId);
      if (!taxi) continue; // a real taxi's offer: its driver answers
      this.stats.offersSeen++;
      // Each offer's answer is drawn from its own stream (the run's seed and the offer's id):
      // from one shared sequence, the n-th offer of every start got the same answer, so the
      // first offer of the same desk was declined on every default demo start.
      let decision = decideOffer(Random.derive(this.answerSeed, offer.id), this.o.shares);
      // Busy drivers say no rather than let the desk wait.
      if (decision.answer !== 'decline' && !taxi.behaviour.canTakeBooking(now)) {
        decision = { answer: 'decline', afterMs: decision.answer === 'accept' ? decision.afterMs : 3000 };
      }
      if (decision.answer === 'ignore') this.stats.ignored++;
      this.decided.set(offer.id, { offer, decision, dueMs: decision.answer === 'ignore' ? 0 : now + decision.afterMs });
    }
    for (const [id, entry] of this.decided) {
      if (!open.has(id)) {
        this.decided.delete(id);
        continue;
      }
      const { decision } = entry;
      if (decision.answer === 'ignore' || entry.dueMs > this.o.clock.now() || entry.dueMs < 0) continue;
      entry.dueMs = -1; // answered (or answering): never twice
      await this.answer(entry.offer, decision.answer);
    }
    await this.recheckServing();
  }

  private async answer(offer: OpenOffer, wanted: 'accept' | 'decline'): Promise<void> {
    const taxi = this.o.taxi(offer.vehicleId);
    if (!taxi) return;
    const now = this.o.clock.now();
    const accept = wanted === 'accept' && taxi.behaviour.acceptBooking(jobOf(offer), now);
    const outcome = await this.send(offer, accept ? 'accept' : 'decline');
    if (outcome === 'closed') {
      this.stats.closed++;
      if (accept) taxi.behaviour.dropBooking(offer.bookingId);
      return;
    }
    if (accept) {
      this.stats.accepted++;
      this.follow(offer.bookingId, offer.vehicleId);
    } else {
      this.stats.declined++;
    }
    this.o.log.debug({ offer: offer.id, booking: offer.bookingId, vehicle: offer.vehicleId, accept }, 'offer answered');
  }

  private async send(offer: OpenOffer, answer: 'accept' | 'decline') {
    const own = this.o.answerToken(offer.vehicleId);
    if (own) {
      try {
        return await this.o.api.answer(own, offer.id, answer);
      } catch (err) {
        // A device token rotated elsewhere: the desk answers on the driver's behalf.
        if (!(err instanceof HttpError) || err.status !== 401) throw err;
      }
    }
    return this.o.api.answer(this.o.listToken, offer.id, answer);
  }

  /** Look at the booking now and then until its passenger is aboard: a cancellation turns the taxi back. */
  follow(bookingId: string, vehicleId: string): void {
    this.serving.set(bookingId, { vehicleId, checkAtMs: this.o.clock.now() + RECHECK_MS });
  }

  /** A booking cancelled (or given to another taxi) while the taxi drives to it: the taxi goes back to work. */
  private async recheckServing(): Promise<void> {
    const now = this.o.clock.now();
    for (const [bookingId, entry] of this.serving) {
      const taxi = this.o.taxi(entry.vehicleId);
      if (!taxi || taxi.behaviour.bookingId !== bookingId) {
        this.serving.delete(bookingId);
        continue;
      }
      if (entry.checkAtMs > now) continue;
      entry.checkAtMs = now + RECHECK_MS;
      const booking = await this.o.api.booking(this.o.listToken, bookingId);
      const lost =
        !booking ||
        booking.status === 'cancelled' ||
        booking.status === 'expired' ||
        (booking.vehicleId != null && booking.vehicleId !== entry.vehicleId);
      if (lost) {
        if (taxi.behaviour.dropBooking(bookingId)) this.stats.dropped++;
        this.serving.delete(bookingId);
      } else if (booking.status === 'on-board' || booking.status === 'completed') {
        this.serving.delete(bookingId);
      }
    }
  }
}
