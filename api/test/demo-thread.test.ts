import { AppError, createLogger } from '@vigia/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningDemo, startDemo } from '../src/demo/demo.js';
import { api, startTestSystem, type TestSystem } from './support.js';

const VEHICLES = 6;

/**
 * The embedded demo's fleet runs on a worker thread of its own (api/src/demo/demo-worker.ts,
 * loaded from dist): it registers through this system's API, its samples land in this system's
 * PGlite, it reports its figures to the main thread, and it stops cleanly. A thread that cannot
 * start is refused with a code, and the API it was started beside keeps answering.
 */
describe('the demo simulator on a worker thread', () => {
  let sys: TestSystem;
  const log = createLogger('demo-thread-test', 'silent');
  beforeAll(async () => {
    sys = await startTestSystem('pglite', { DEMO: 'off' });
  }, 60_000);
  afterAll(async () => {
    await sys?.stop();
  });

  it('starts, sends samples that land in PGlite, and stops cleanly with final figures', async () => {
    const demo: RunningDemo = await startDemo({
      url: sys.url,
      adminToken: sys.adminToken,
      vehicles: VEHICLES,
      intervalMs: 200,
      protocol: 'native',
      gateways: undefined,
      bookingIntervalS: 0,
      log,
      statsIntervalMs: 100,
    });
    try {
      expect(demo.vehicles).toBe(VEHICLES);
      const deadline = Date.now() + 45_000;
      let stored = 0;
      while (Date.now() < deadline) {
        stored = Number((await sys.db.query<{ n: string }>('SELECT count(*) AS n FROM telemetry')).rows[0]?.n);
        if (stored >= VEHICLES * 3 && (demo.stats()?.accepted ?? 0) > 0) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      expect(stored).toBeGreaterThanOrEqual(VEHICLES * 3);
      const vehicles = new Set(
        (await sys.db.query<{ vehicle_id: string }>('SELECT DISTINCT vehicle_id FROM telemetry')).rows.map(
          (r) => r.vehicle_id,
        ),
      );
      expect(vehicles.size).toBe(VEHICLES);
    } finally {
      await demo.stop();
    }
    // Final figures, sent by the thread once every device had stopped: nothing dropped or refused,
    // every sample made is accounted for (answered, or still in a backlog when the fleet stopped),
    // every sample the server acknowledged is stored, and none twice (a request aborted by the stop
    // may have been stored unacknowledged).
    const stats = demo.stats();
    if (!stats) throw new Error('no figures from the demo thread');
    expect(stats.dropped).toBe(0);
    expect(stats.rejected).toBe(0);
    expect(stats.accepted).toBeGreaterThan(0);
    expect(stats.accepted + stats.duplicates + stats.backlog).toBeGreaterThanOrEqual(stats.generated);
    const count = async () =>
      Number((await sys.db.query<{ n: string }>('SELECT count(*) AS n FROM telemetry')).rows[0]?.n);
    // A request the server took before the stop commits with its batch (up to 50 ms on PGlite) after it.
    let stored = await count();
    for (let settled = false; !settled; ) {
      await new Promise((r) => setTimeout(r, 300));
      const now = await count();
      settled = now === stored;
      stored = now;
    }
    expect(stored).toBeGreaterThanOrEqual(stats.accepted);
    expect(stored).toBeLessThanOrEqual(stats.generated);
    // Stopped means stopped: nothing arrives any more.
    await new Promise((r) => setTimeout(r, 600));
    expect(await count()).toBe(stored);
    await demo.stop(); // A second stop is the same stop.
  }, 90_000);

  it('refuses to start with a code when the fleet cannot register, and the API keeps answering', async () => {
    const failed = await startDemo({
      url: sys.url,
      adminToken: 'not-the-admin-token-0123456789',
      vehicles: VEHICLES,
      intervalMs: 1000,
      protocol: 'native',
      gateways: undefined,
      bookingIntervalS: 0,
      log,
    }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(failed).toBeInstanceOf(AppError);
    expect((failed as AppError).code).toMatch(/^[A-Z_]+$/);
    expect((await api(sys, 'GET', '/health', undefined, null)).status).toBe(200);
  }, 60_000);
});
