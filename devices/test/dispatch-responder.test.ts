import { createLogger } from '@vigia/core';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../src/clock.js';
import type { AnswerOutcome, OpenOffer, SimBooking } from '../src/dispatch/dispatch-api.js';
import { ANSWER_DELAY_S, decideOffer, OfferResponder } from '../src/dispatch/offer-responder.js';
import { Fleet, type SimTaxi } from '../src/fleet/fleet.js';
import { buildRoster } from '../src/fleet/roster.js';
import { Random } from '../src/random.js';

/**
 * The simulated drivers' answers: mostly accepted, some declined, some left to expire, after a
 * human delay on the simulation's clock; a busy driver declines; an accepting taxi is sent to the
 * pickup before its answer goes out and released when the offer had closed or the booking is
 * called off. The API side is a stand-in holding the open offers (the real one answers in
 * api/test/dispatch-demo.test.ts).
 */

const START = Date.parse('2026-11-25T17:00:00Z');
const roster = buildRoster(24, START);
const log = createLogger('test', 'silent');

describe('decideOffer', () => {
  it('accepts about 80 %, declines about 10 %, lets about 10 % expire, answering after 2–8 s', () => {
    const rng = new Random('answers');
    const counts = { accept: 0, decline: 0, ignore: 0 };
    const n = 20_000;
    for (let i = 0; i < n; i++) {
      const d = decideOffer(rng);
      counts[d.answer]++;
      if (d.answer !== 'ignore') {
        expect(d.afterMs).toBeGreaterThanOrEqual(ANSWER_DELAY_S[0] * 1000);
        expect(d.afterMs).toBeLessThanOrEqual(ANSWER_DELAY_S[1] * 1000);
      }
    }
    expect(counts.accept / n).toBeCloseTo(0.8, 1);
    expect(counts.decline / n).toBeCloseTo(0.1, 1);
    expect(counts.ignore / n).toBeCloseTo(0.1, 1);
    expect(Math.min(counts.decline, counts.ignore)).toBeGreaterThan(n * 0.08);
  });

  it('is reproducible from the seed', () => {
    const a = new Random('s');
    const b = new Random('s');
    for (let i = 0; i < 100; i++) expect(decideOffer(a)).toEqual(decideOffer(b));
  });
});

/** The offers endpoint as the responder sees it, answers recorded. */
class OffersStandIn {
  open: OpenOffer[] = [];
  answers: { offerId: string; answer: 'accept' | 'decline'; token: string }[] = [];
  bookings = new Map<string, SimBooking>();
  closeOnAnswer = false;

  async openOffers(): Promise<OpenOffer[]> {
    return this.open;
  }
  async answer(token: string, offerId: string, answer: 'accept' | 'decline'): Promise<AnswerOutcome> {
    this.answers.push({ offerId, answer, token });
    this.open = this.open.filter((o) => o.id !== offerId);
    return this.closeOnAnswer ? 'closed' : 'answered';
  }
  async booking(_token: string, id: string): Promise<SimBooking | undefined> {
    return this.bookings.get(id);
  }
}

function offer(id: string, vehicleId: string, taxi?: SimTaxi): OpenOffer {
  const at = taxi?.vehicle.state.position ?? { lat: -15.79, lon: -47.88 };
  return {
    id,
    bookingId: `bk_${id}`,
    vehicleId,
    operatorId: 'sim-op-df-1',
    expiresAt: new Date(START + 20_000).toISOString(),
    pickup: { lat: at.lat + 0.005, lon: at.lon },
  };
}

function setUp(shares = { accept: 1, decline: 0 }) {
  const fleet = new Fleet(roster, { seed: 2, startMs: START, warmUpMs: 30 * 60_000 });
  const taxis = roster.entries.flatMap((e) => {
    const t = fleet.taxi(e.vehicle.id);
    return t ? [{ id: e.vehicle.id, taxi: t }] : [];
  });
  const free = taxis.find((t) => t.taxi.behaviour.canTakeBooking(START));
  const busy = taxis.find((t) => !t.taxi.behaviour.canTakeBooking(START));
  if (!free || !busy) throw new Error('need a free and a busy taxi');
  const clock = new ManualClock(START);
  const api = new OffersStandIn();
  const responder = new OfferResponder({
    api,
    listToken: 'admin',
    answerToken: (vehicleId) => `device-of-${vehicleId}`,
    taxi: (id) => fleet.taxi(id),
    clock,
    rng: new Random('responder'),
    log,
    shares,
  });
  return { fleet, free, busy, clock, api, responder };
}

describe('OfferResponder', () => {
  it('answers only after the human delay, with the taxi’s own device token, and sends the taxi', async () => {
    const { free, busy, clock, api, responder } = setUp();
    api.open = [offer('a', free.id, free.taxi), offer('b', busy.id, busy.taxi), offer('c', 'a-real-taxi')];
    await responder.round();
    expect(api.answers).toEqual([]);
    clock.advance(ANSWER_DELAY_S[1] * 1000);
    await responder.round();
    expect(api.answers).toEqual(
      expect.arrayContaining([
        { offerId: 'a', answer: 'accept', token: `device-of-${free.id}` },
        // The busy driver cannot take it whatever the draw said.
        { offerId: 'b', answer: 'decline', token: `device-of-${busy.id}` },
      ]),
    );
    expect(api.answers.some((a) => a.offerId === 'c')).toBe(false);
    expect(free.taxi.behaviour.bookingId).toBe('bk_a');
    expect(responder.stats).toMatchObject({ offersSeen: 2, accepted: 1, declined: 1 });
    // Answered once, however often it polls.
    await responder.round();
    expect(api.answers).toHaveLength(2);
  });

  it('releases the taxi when the offer had closed before the answer arrived', async () => {
    const { free, clock, api, responder } = setUp();
    api.closeOnAnswer = true;
    api.open = [offer('a', free.id, free.taxi)];
    await responder.round();
    clock.advance(ANSWER_DELAY_S[1] * 1000);
    await responder.round();
    expect(api.answers).toHaveLength(1);
    expect(free.taxi.behaviour.bookingId).toBeUndefined();
    expect(responder.stats.closed).toBe(1);
  });

  it('lets the offer expire when the driver does not answer', async () => {
    const { free, clock, api, responder } = setUp({ accept: 0, decline: 0 });
    api.open = [offer('a', free.id, free.taxi)];
    for (let i = 0; i < 5; i++) {
      await responder.round();
      clock.advance(5000);
    }
    expect(api.answers).toEqual([]);
    expect(responder.stats.ignored).toBe(1);
    expect(free.taxi.behaviour.bookingId).toBeUndefined();
  });

  it('turns the taxi back when its booking is cancelled on the way', async () => {
    const { fleet, free, clock, api, responder } = setUp();
    const o = offer('a', free.id, free.taxi);
    api.open = [o];
    await responder.round();
    clock.advance(ANSWER_DELAY_S[1] * 1000);
    fleet.advanceTo(clock.now());
    await responder.round();
    expect(free.taxi.behaviour.bookingId).toBe(o.bookingId);
    api.bookings.set(o.bookingId, {
      id: o.bookingId,
      operatorId: o.operatorId,
      status: 'cancelled',
      vehicleId: free.id,
      pickup: o.pickup,
    });
    clock.advance(15_000);
    fleet.advanceTo(clock.now());
    await responder.round();
    expect(free.taxi.behaviour.bookingId).toBeUndefined();
    expect(responder.stats.dropped).toBe(1);
  });
});
