import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Database, openPglite, openPostgres } from '@vigia/db';
import { createScratchDatabase, type ScratchDatabase, seedPgliteDataDir } from '@vigia/db/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { ENTRY, spawnSystem } from './processes.js';
import { api, registerVehicle } from './support.js';

const ADMIN_TOKEN = 'shutdown-test-admin-token-42';

/**
 * SIGTERM while devices stream: the process stops taking requests, lets every accepted batch
 * commit, answers the requests in flight, and exits 0. Every record a device saw acknowledged
 * must then be in the database.
 */
describe.each(['postgres', 'pglite'] as const)('graceful shutdown on %s', (target) => {
  let scratch: ScratchDatabase | undefined;
  let dataDir: string | undefined;
  afterEach(async () => {
    await scratch?.drop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('stores every record acknowledged before SIGTERM', async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'vigia-shutdown-'));
    scratch = target === 'postgres' ? await createScratchDatabase() : undefined;
    if (!scratch) await seedPgliteDataDir(dataDir);
    const sys = await spawnSystem(ENTRY.all, {
      DATA_DIR: dataDir,
      ADMIN_TOKEN,
      DEMO: 'off',
      // A long batching window keeps records waiting for their commit when the signal lands.
      INGEST_BATCH_MAX_WAIT_MS: '40',
      ...(scratch ? { DATABASE_URL: scratch.url } : {}),
    });
    const client = { url: sys.url, adminToken: ADMIN_TOKEN };
    const devices = await Promise.all([0, 1, 2, 3].map(() => registerVehicle(client)));

    const acked = new Set<string>();
    let stop = false;
    let sent = 0;
    const t0 = Date.now() - 3_600_000;
    const stream = async (dev: (typeof devices)[number], lane: number) => {
      for (let i = 0; !stop; i++) {
        const batch = Array.from({ length: 20 }, (_, j) => ({
          deviceId: dev.identifier,
          ts: new Date(t0 + (i * 20 + j) * 1000 + lane).toISOString(),
          lat: -1.45 - j * 1e-4,
          lon: -48.49,
        }));
        sent += batch.length;
        try {
          const res = await api<{ accepted: number; duplicates: number }>(
            client,
            'POST',
            '/v1/telemetry',
            batch,
            dev.token,
          );
          if (res.status !== 200) break;
          expect(res.body.accepted + res.body.duplicates).toBe(batch.length);
          for (const r of batch) acked.add(`${dev.deviceId}|${r.ts}`);
        } catch {
          break; // connection refused or reset: the server is gone
        }
      }
    };
    const lanes = devices.flatMap((d, i) => [stream(d, i * 2), stream(d, i * 2 + 1)]);
    await new Promise((r) => setTimeout(r, 1500));
    const ackedBeforeSignal = acked.size;
    sys.child.kill('SIGTERM');
    const code = await sys.exited;
    stop = true;
    await Promise.all(lanes);
    if (code !== 0) console.log(sys.logs.slice(-15).join('\n'));
    expect(code).toBe(0);
    expect(sys.logs.join('\n')).toContain('stopped cleanly');
    expect(ackedBeforeSignal).toBeGreaterThan(100);

    const db: Database = scratch ? openPostgres(scratch.url, 1) : await openPglite(join(dataDir, 'pgdata'));
    try {
      const { rows } = await db.query<{ device_id: string; ts: Date }>('SELECT device_id, ts FROM telemetry');
      const stored = new Set(rows.map((r) => `${r.device_id}|${r.ts.toISOString()}`));
      const lost = [...acked].filter((k) => !stored.has(k));
      console.log(
        `shutdown (${target}): ${sent} sent, ${acked.size} acknowledged, ${stored.size} stored, ${lost.length} lost`,
      );
      expect(lost).toEqual([]);
      expect(stored.size).toBe(rows.length);
    } finally {
      await db.close();
    }
  });
});
