import type { RunningSystem } from '@vigia/api';
import type { Booking } from '@vigia/core';
import { TEST_REDIS_URL } from '@vigia/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BSB, must, north, openOffer, report, since, type Taxi, taxi } from './dispatch-bookings-support.js';
import { api, startSecondApi, startTestSystem, type TestSystem, waitFor } from './support.js';

/**
 * What several API processes and a racing driver must never break: an accept that races the
 * worker's expiry of the same offer has exactly one winner, and with two API processes on one
 * PostgreSQL database (and one Redis) every offer of every booking is made once.
 */

const env = (prefix: string) => ({
  REDIS_URL: TEST_REDIS_URL,
  REDIS_PREFIX: prefix,
  DISPATCH_POLL_INTERVAL_MS: '20',
});

describe('bookings under concurrency (PostgreSQL)', () => {
  let sys: TestSystem;
  let second: RunningSystem;
  const run = Math.random().toString(36).slice(2, 7);
  const coop = `coop-${run}`;
  const taxis: Taxi[] = [];

  beforeAll(async () => {
    const prefix = `vigia-bk-${run}`;
    sys = await startTestSystem('postgres', { ...env(prefix), DISPATCH_OFFER_TIMEOUT_S: '60' });
    second = await startSecondApi(sys, { ...env(prefix), DISPATCH_OFFER_TIMEOUT_S: '60' });
    await must(sys, 'POST', '/v1/operators', {
      id: coop,
      name: 'Cooperativa',
      pack: 'df-taxi',
      kind: 'cooperative',
      validFrom: since(),
    });
    for (let i = 0; i < 30; i++) {
      const t = await taxi(sys, 'df-taxi', coop);
      taxis.push(t);
      await report(sys, t, north(BSB, 100 + i * 40));
    }
  });
  afterAll(async () => {
    await second?.close();
    await sys?.stop();
  });

  /** Cancels every open booking, so the next test starts with every taxi free. */
  async function cancelAll(): Promise<void> {
    const open = await api<{ items: Booking[] }>(sys, 'GET', `/v1/bookings?operatorId=${coop}&limit=1000`);
    for (const b of open.body.items) {
      if (['pending', 'offered', 'accepted', 'arrived'].includes(b.status)) {
        await must(sys, 'POST', `/v1/bookings/${b.id}/cancel`);
      }
    }
  }

  it('two processes make each offer once: the first of every booking, and the next after each expiry', async () => {
    // Taken alternately through both processes: each wakes its own worker at once.
    const created = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        must<Booking>(i % 2 ? second : sys, 'POST', '/v1/bookings', { operatorId: coop, pickup: north(BSB, i * 10) }),
      ),
    );
    const ids = created.map((b) => b.id);
    for (const id of ids) await openOffer(sys, id, 1);
    const offersNow = async () => {
      const { rows } = await sys.db.query<{
        booking_id: string;
        seq: number;
        vehicle_id: string;
        response: string | null;
      }>(
        'SELECT booking_id, seq, vehicle_id, response FROM booking_offers WHERE booking_id = ANY($1::text[]) ORDER BY booking_id, seq',
        [ids],
      );
      return rows;
    };
    const first = await offersNow();
    expect(first).toHaveLength(12);
    expect(new Set(first.map((o) => o.vehicle_id)).size).toBe(12);

    // Every open offer expires now: both workers see all twelve bookings due at once.
    await sys.db.query(
      'UPDATE booking_offers SET expires_at = now() WHERE booking_id = ANY($1::text[]) AND response IS NULL',
      [ids],
    );
    await sys.db.query('UPDATE bookings SET next_action_at = now() WHERE id = ANY($1::text[])', [ids]);
    await waitFor('every booking offered a second time', async () => {
      const rows = await offersNow();
      return rows.filter((o) => o.seq === 2).length === 12 ? rows : undefined;
    });
    await new Promise((r) => setTimeout(r, 300));
    const rows = await offersNow();
    expect(rows).toHaveLength(24);
    for (const id of ids) {
      const own = rows.filter((o) => o.booking_id === id);
      expect(own.map((o) => [o.seq, o.response])).toEqual([
        [1, 'expired'],
        [2, null],
      ]);
      expect(own[0]?.vehicle_id).not.toBe(own[1]?.vehicle_id);
    }
    // No taxi holds two open offers.
    const open = rows.filter((o) => o.response === null).map((o) => o.vehicle_id);
    expect(new Set(open).size).toBe(open.length);
    await cancelAll();
  });

  it('an accept racing the expiry of its offer has exactly one winner', async () => {
    const n = 12;
    const bookings = await Promise.all(
      Array.from({ length: n }, () => must<Booking>(sys, 'POST', '/v1/bookings', { operatorId: coop, pickup: BSB })),
    );
    const offers = await Promise.all(bookings.map((b) => openOffer(sys, b.id, 1)));
    // Each offer expires 400 ms from now; the drivers answer from 150 ms before to 150 ms after,
    // while both processes' workers poll every 20 ms.
    await sys.db.query(
      `UPDATE booking_offers SET expires_at = now() + interval '400 milliseconds' WHERE id = ANY($1::text[])`,
      [offers.map((o) => o.id)],
    );
    await sys.db.query(
      `UPDATE bookings SET next_action_at = now() + interval '400 milliseconds' WHERE id = ANY($1::text[])`,
      [bookings.map((b) => b.id)],
    );
    const t0 = Date.now();
    const answers = await Promise.all(
      offers.map(async (o, i) => {
        const at = t0 + 250 + Math.round((300 * i) / (n - 1));
        await new Promise((r) => setTimeout(r, Math.max(0, at - Date.now())));
        const driver = taxis.find((t) => t.vehicleId === o.vehicleId);
        return (await api(i % 2 ? second : sys, 'POST', `/v1/offers/${o.id}/accept`, undefined, driver?.token)).status;
      }),
    );
    // Every offer ends answered: accepted by its winner, or expired by the server's sweep. The
    // sweep runs on its poll interval, later on a loaded machine: wait for it, not a fixed time.
    await waitFor(
      'every raced offer answered',
      async () => {
        const { rows } = await sys.db.query<{ open: number }>(
          'SELECT count(*)::int AS open FROM booking_offers WHERE id = ANY($1::text[]) AND response IS NULL',
          [offers.map((o) => o.id)],
        );
        return rows[0]?.open === 0;
      },
      30_000,
    );
    let won = 0;
    let lost = 0;
    for (const [i, b] of bookings.entries()) {
      const offer = offers[i];
      const { rows: offerRows } = await sys.db.query<{ response: string }>(
        'SELECT response FROM booking_offers WHERE id = $1',
        [offer?.id],
      );
      const { rows: dispatches } = await sys.db.query('SELECT 1 FROM dispatches WHERE id = $1', [b.id]);
      const { rows: bookingRows } = await sys.db.query<{ status: string; vehicle_id: string | null }>(
        'SELECT status, vehicle_id FROM bookings WHERE id = $1',
        [b.id],
      );
      const outcome = [
        answers[i],
        offerRows[0]?.response,
        dispatches.length,
        bookingRows[0]?.vehicle_id === offer?.vehicleId,
      ];
      if (answers[i] === 200) {
        won++;
        expect(outcome).toEqual([200, 'accepted', 1, true]);
        expect(bookingRows[0]?.status).toBe('accepted');
      } else {
        lost++;
        expect(outcome).toEqual([409, 'expired', 0, false]);
      }
    }
    console.log(`accept vs expiry: ${won} accepts won, ${lost} lost to the expiry`);
    expect(won + lost).toBe(n);
    await cancelAll();
  });
});
