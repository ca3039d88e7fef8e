import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestSystem, type TestSystem } from './support.js';

/**
 * `GET /health` is liveness from memory: it never waits for the database, whose one PGlite
 * connection the ingest keeps busy under load. Here a transaction holds that connection; a query
 * behind it waits, `/health` does not.
 */
describe('/health beside a busy database', () => {
  let sys: TestSystem;
  beforeAll(async () => {
    sys = await startTestSystem('pglite');
  }, 60_000);
  afterAll(async () => {
    await sys?.stop();
  });

  it('answers while the database connection is held by a transaction', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let held: () => void = () => {};
    const holding = new Promise<void>((resolve) => {
      held = resolve;
    });
    const transaction = sys.db.transaction(async (tx) => {
      await tx.query('SELECT 1');
      held();
      await gate;
    });
    await holding;
    let queuedDone = false;
    const queued = sys.db.query('SELECT 1').then(() => {
      queuedDone = true;
    });
    try {
      const health = await api<{ status: string }>(sys, 'GET', '/health', undefined, null);
      expect(health.status).toBe(200);
      expect(health.body.status).toBe('ok');
      // The query behind the transaction is still waiting: /health did not go through the database.
      expect(queuedDone).toBe(false);
    } finally {
      release();
      await transaction;
      await queued;
    }
    expect(queuedDone).toBe(true);
  });
});
