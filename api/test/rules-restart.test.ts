import { access, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RunningSystem, startSystem } from '@vigia/api';
import { ephemeralPorts } from '@vigia/core';
import { createScratchDatabase, type ScratchDatabase } from '@vigia/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, registerVehicle, waitFor } from './support.js';

/**
 * Embedded rules survive a restart (RULES_MODE=embedded, RULES_STATE_FILE): a graceful shutdown
 * saves the engine's state, the next start restores it, and a run in progress when the process
 * stopped carries on under the same event — one violation that grows, not a second one started
 * from the first sample after the restart.
 */
describe('embedded rule state across a restart', () => {
  let scratch: ScratchDatabase;
  let dataDir: string;
  let sys: RunningSystem | undefined;
  const env = () => ({
    ...ephemeralPorts(),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    DEMO: 'off',
    LOG_LEVEL: 'silent',
    AUTH_FAILURE_LIMIT: '0',
    OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0',
    DATABASE_URL: scratch.url,
    ADMIN_TOKEN: 'test-admin-token-0123456789',
  });

  beforeAll(async () => {
    scratch = await createScratchDatabase();
    dataDir = await mkdtemp(join(tmpdir(), 'vigia-rules-restart-'));
  });
  afterAll(async () => {
    await sys?.close();
    await scratch?.drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  interface Stored {
    ruleId: string;
    startedAt: string;
    endedAt: string | null;
  }

  it('continues a run in progress (6 passengers in a 4-seat taxi) after a graceful restart', async () => {
    sys = await startSystem(env());
    const dev = await registerVehicle(sys);
    // Two minutes of an over-capacity ride that ended a minute ago: within idleCloseS, so no
    // timer closes it, whenever the test runs.
    const t0 = Date.now() - 180_000;
    const ride = Array.from({ length: 24 }, (_, i) => ({
      deviceId: dev.identifier,
      ts: new Date(t0 + i * 5000).toISOString(),
      lat: -15.7942 + i * 0.0004,
      lon: -47.8822,
      speedKmh: 30,
      passengers: 6,
      meter: { state: 'hired', tariff: 1, fareCents: 600 + i * 20, tripId: 'trip-restart' },
    }));
    const overCapacity = async (s: RunningSystem) => {
      const res = await api<{ items: Stored[] }>(s, 'GET', `/v1/violations?vehicleId=${dev.vehicleId}`);
      return res.body.items.filter((v) => v.ruleId === 'DF_OVER_CAPACITY');
    };

    const first = await api<{ accepted: number }>(sys, 'POST', '/v1/telemetry', ride.slice(0, 12), dev.token);
    expect(first.body.accepted).toBe(12);
    const before = await waitFor('the run raised before the restart', async () => {
      const found = await overCapacity(sys as RunningSystem);
      return found.length === 1 ? found[0] : undefined;
    });
    await sys.close();
    sys = undefined;
    await access(join(dataDir, 'rule-state.bin'));

    sys = await startSystem(env());
    const second = await api<{ accepted: number }>(sys, 'POST', '/v1/telemetry', ride.slice(12), dev.token);
    expect(second.body.accepted).toBe(12);
    const lastFirstHalf = Date.parse(ride[11]?.ts ?? '');
    const after = await waitFor('the run grew past the restart', async () => {
      const found = await overCapacity(sys as RunningSystem);
      return found.some((v) => v.endedAt !== null && Date.parse(v.endedAt) > lastFirstHalf) ? found : undefined;
    });
    // One violation, begun before the restart: without the saved state the engine would have
    // started a second run at the first sample after it.
    expect(after).toHaveLength(1);
    expect(after[0]?.startedAt).toBe(before?.startedAt);
    expect(Date.parse(after[0]?.startedAt ?? '')).toBeLessThan(lastFirstHalf);
  });
});
