import { createLogger } from '@vigia/core';
import { type RunningSimulator, startSimulator } from '@vigia/devices';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestSystem, type TestSystem } from './support.js';

interface Offer {
  vehicleId: string;
  response: string | null;
}
interface Booking {
  id: string;
  pack: string;
  operatorId: string;
  status: string;
  mode: string;
  createdAt: string;
  completedAt: string | null;
  offers: Offer[];
}

/**
 * The demo's dispatch end to end: the simulated fleet registers its radio desks (Belém radio
 * operators declaring their cooperatives' taxis, a dispatcher user per desk), the desks take
 * bookings in Brasília and Belém through the API, the booking service offers them to the taxis,
 * the simulated drivers answer (some decline, some let the offer expire), and the taxi that
 * accepts drives to the pickup, carries the passenger and is free again: the bookings reach
 * `completed` from telemetry alone, and no dispatch is an unlawful radio dispatch
 * (BEL_UNAUTHORIZED_RADIO). The stands the taxis wait at are registered, and their queues fill.
 *
 * A whole trip takes minutes, so the simulated fleet here runs on a clock SPEED times faster than
 * real time (its samples are stamped ahead of the server's clock, within the raised
 * INGEST_MAX_FUTURE_SKEW_S); the offers still expire in real time, as in the demo.
 */

const SPEED = 30;
const VEHICLES = 24;
// Alone, both cities complete a booking within a minute; a CI machine running three suites at once
// on two cores can take twice that.
const WAIT_MS = 180_000;

describe('the demo fleet takes and serves bookings in Brasília and Belém', () => {
  let sys: TestSystem;
  let sim: RunningSimulator | undefined;
  let startedAt = 0;
  beforeAll(async () => {
    sys = await startTestSystem('pglite', { INGEST_MAX_FUTURE_SKEW_S: '7200' });
    const t0 = Date.now();
    startedAt = t0;
    sim = await startSimulator({
      apiUrl: sys.url,
      adminToken: sys.adminToken,
      vehicles: VEHICLES,
      intervalMs: 1000,
      seed: 1,
      clock: { now: () => t0 + (Date.now() - t0) * SPEED },
      bookingIntervalS: 180,
      // More refusals than the demo's 10 % + 10 %, so that a run of a few dozen offers surely has some.
      answerShares: { accept: 0.6, decline: 0.2 },
      logger: createLogger('simulator', 'silent'),
    });
  }, 120_000);
  afterAll(async () => {
    await sim?.stop();
    await sys?.stop();
  });

  it(
    'completes bookings in both cities, with declined or expired offers on the way, never an unlawful radio dispatch',
    async () => {
      const deadline = Date.now() + WAIT_MS;
      let bookings: Booking[] = [];
      const firstCompleted = new Map<string, number>();
      // The simulator registers the road networks' stands, so the taxis waiting at them form queues.
      const stands = (await api<{ items: { id: string; pack: string }[] }>(sys, 'GET', '/v1/stands?limit=1000')).body
        .items;
      let queued = false;
      while (Date.now() < deadline) {
        for (const stand of stands) {
          if (queued) break;
          const queue = await api<{ items: unknown[] }>(sys, 'GET', `/v1/stands/${stand.id}/queue`);
          queued = queue.body.items.length > 0;
        }
        bookings = (await api<{ items: Booking[] }>(sys, 'GET', '/v1/bookings?limit=1000')).body.items;
        for (const b of bookings) {
          if (b.status === 'completed' && !firstCompleted.has(b.pack))
            firstCompleted.set(b.pack, Date.now() - startedAt);
        }
        const refused = bookings.some((b) =>
          b.offers.some((o) => o.response === 'declined' || o.response === 'expired'),
        );
        if (firstCompleted.size === 2 && refused && queued) break;
        await new Promise((r) => setTimeout(r, 1000));
      }
      const byStatus = (pack: string) =>
        Object.fromEntries(
          ['offered', 'accepted', 'arrived', 'on-board', 'completed', 'expired'].map((s) => [
            s,
            bookings.filter((b) => b.pack === pack && b.status === s).length,
          ]),
        );
      const responses = bookings.flatMap((b) => b.offers.map((o) => o.response));
      console.log(
        `first completed booking after ${[...firstCompleted].map(([p, ms]) => `${p} ${(ms / 1000).toFixed(0)} s`).join(', ')} real ` +
          `(×${SPEED}: about ${[...firstCompleted].map(([p, ms]) => `${p} ${((ms * SPEED) / 60_000).toFixed(1)} min`).join(', ')} simulated); ` +
          `${bookings.length} bookings, df ${JSON.stringify(byStatus('df-taxi'))}, belém ${JSON.stringify(byStatus('belem-taxi'))}; ` +
          `offers: ${['accepted', 'declined', 'expired', 'withdrawn', null].map((r) => `${r} ${responses.filter((x) => x === r).length}`).join(', ')}`,
      );
      expect([...firstCompleted.keys()].sort()).toEqual(['belem-taxi', 'df-taxi']);
      expect([...new Set(stands.map((s) => s.pack))].sort()).toEqual(['belem-taxi', 'df-taxi']);
      expect(queued).toBe(true);
      // Belém bookings are taken by the credentialed radio operators, DF ones by the cooperatives.
      expect(
        bookings.filter((b) => b.pack === 'belem-taxi').every((b) => b.operatorId.startsWith('sim-op-bel-radio-')),
      ).toBe(true);
      expect(responses.filter((r) => r === 'declined' || r === 'expired').length).toBeGreaterThan(0);
      expect(responses.filter((r) => r === 'accepted').length).toBeGreaterThan(0);

      const unlawful = await api<{ items: unknown[] }>(sys, 'GET', '/v1/violations?ruleId=BEL_UNAUTHORIZED_RADIO');
      expect(unlawful.status).toBe(200);
      expect(unlawful.body.items).toEqual([]);
    },
    WAIT_MS + 20_000,
  );
});
