import { randomBytes } from 'node:crypto';
import { TEST_REDIS_URL } from '@vigia/db/testing';
import { type ChildSystem, ENTRY, spawnSystem } from './processes.js';
import { startTestSystem, type TestSystem } from './support.js';

/** Services mode in two processes on one PostgreSQL database and one Redis key prefix. */
export interface ProcessPair {
  /** In the test's own process. */
  readonly a: TestSystem;
  /** A built API process (`api/dist/api-main.js`). */
  readonly b: ChildSystem;
  /** B as `api()` addresses it, with the deployment's admin token. */
  readonly procB: { url: string; adminToken: string };
  /** Stops B (SIGTERM, waited for), then A. */
  stop(): Promise<void>;
}

export async function startProcessPair(
  opts: {
    /** Environment of both processes (e.g. `DEVICE_CACHE_TTL_MS`). */
    shared?: Record<string, string>;
    /** B's own additions. */
    b?: Record<string, string>;
    /** Where B reaches Redis (default the test Redis; a test that cuts B off passes a proxy's). */
    redisUrlForB?: string;
  } = {},
): Promise<ProcessPair> {
  const prefix = `vigia-test-${randomBytes(4).toString('hex')}`;
  const a = await startTestSystem('postgres', { REDIS_URL: TEST_REDIS_URL, REDIS_PREFIX: prefix, ...opts.shared });
  let b: ChildSystem;
  try {
    b = await spawnSystem(ENTRY.api, {
      DATABASE_URL: a.config.DATABASE_URL ?? '',
      REDIS_URL: opts.redisUrlForB ?? TEST_REDIS_URL,
      REDIS_PREFIX: prefix,
      ADMIN_TOKEN: a.adminToken,
      ...opts.shared,
      ...opts.b,
    });
  } catch (err) {
    await a.stop();
    throw err;
  }
  return {
    a,
    b,
    procB: { url: b.url, adminToken: a.adminToken },
    async stop() {
      b.child.kill('SIGTERM');
      await b.exited;
      await a.stop();
    },
  };
}
