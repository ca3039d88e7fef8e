import { hashToken } from '@vigia/core';
import { holdTransaction } from '@vigia/db/testing';
import { createTokenResolver, DeviceDirectory } from '@vigia/ingest';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { registerVehicle, startTestSystem, type TestSystem } from './support.js';

const DEVICES = 5;

/**
 * Device-token lookups that miss the cache within one turn of the event loop go to the database
 * as one query (ingest/src/device-directory.ts): against a real PGlite registry, each token still
 * resolves to its own device, unknown tokens are refused, and the lookups took one statement.
 */
describe('batched device-token lookups', () => {
  let sys: TestSystem;
  let devices: { deviceId: string; identifier: string; vehicleId: string; token: string }[] = [];
  beforeAll(async () => {
    sys = await startTestSystem('pglite');
    devices = [];
    // One after the other: each registration reads the operator the previous one may have created.
    for (let i = 0; i < DEVICES; i++) devices.push(await registerVehicle(sys, { operatorId: 'op-token-batch' }));
  }, 60_000);
  afterAll(async () => {
    await sys?.stop();
  });

  it('resolves the tokens asked for together in one query, each to its own device, and refuses unknown ones', async () => {
    const directory = new DeviceDirectory(sys.db, 60_000);
    const unknown = ['not-a-device-token-0000000000000001', 'not-a-device-token-0000000000000002'];
    const asked = [...devices.map((d) => d.token), ...unknown, devices[0]?.token ?? ''];
    const found = await Promise.all(asked.map((t) => directory.byTokenHash(hashToken(t))));
    for (const [i, d] of devices.entries()) {
      expect(found[i]?.deviceId).toBe(d.deviceId);
      expect(found[i]?.identifier).toBe(d.identifier);
      expect(found[i]?.vehicleId).toBe(d.vehicleId);
    }
    expect(found[DEVICES]).toBeUndefined();
    expect(found[DEVICES + 1]).toBeUndefined();
    // The same token asked twice in one turn shares the lookup.
    expect(found[DEVICES + 2]?.deviceId).toBe(devices[0]?.deviceId);
    expect(directory.tokenQueryStats).toEqual({ lookups: DEVICES + 2, queries: 1 });

    // Known and unknown tokens alike are cached: asking again takes no query.
    const again = await Promise.all(asked.map((t) => directory.byTokenHash(hashToken(t))));
    expect(again.map((e) => e?.deviceId)).toEqual(found.map((e) => e?.deviceId));
    expect(directory.tokenQueryStats.queries).toBe(1);
  });

  it('sends the misses asked for while a lookup is in flight together in the next one, not one query per turn', async () => {
    const directory = new DeviceDirectory(sys.db, 60_000);
    const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
    // Hold PGlite's one connection so the first lookup stays in flight while the others are asked.
    const transaction = await holdTransaction(sys.db);
    const first = directory.byTokenHash(hashToken(devices[0]?.token ?? ''));
    await turn();
    await turn();
    const later: Promise<unknown>[] = [];
    for (const d of devices.slice(1)) {
      later.push(directory.byTokenHash(hashToken(d.token)));
      await turn();
    }
    transaction.release();
    await transaction.done;
    const found = await Promise.all([first, ...later]);
    expect(found.map((e) => (e as { deviceId?: string } | undefined)?.deviceId)).toEqual(
      devices.map((d) => d.deviceId),
    );
    expect(directory.tokenQueryStats).toEqual({ lookups: DEVICES, queries: 2 });
  });

  it('answers the token resolver: a device principal for a device token, nothing for an unknown one', async () => {
    const directory = new DeviceDirectory(sys.db, 60_000);
    const resolve = createTokenResolver({ adminToken: sys.adminToken, db: sys.db, devices: directory, ttlMs: 60_000 });
    const [first, unknown] = await Promise.all([
      resolve(devices[1]?.token ?? ''),
      resolve('not-a-device-or-user-token-000000000'),
    ]);
    expect(first).toEqual({
      kind: 'device',
      deviceId: devices[1]?.deviceId,
      identifier: devices[1]?.identifier,
      vehicleId: devices[1]?.vehicleId,
    });
    expect(unknown).toBeUndefined();
    expect(directory.tokenQueryStats.queries).toBe(1);
  });

  it('serves an expired known token at once, re-reads the expired ones together, and looks up one stale for two TTLs before answering', async () => {
    // Only Date is faked: the directory's gather timer and PGlite run on real time.
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const ttlMs = 10_000;
      const directory = new DeviceDirectory(sys.db, ttlMs);
      const tokens = devices.slice(0, 3).map((d) => hashToken(d.token));
      await Promise.all(tokens.map((t) => directory.byTokenHash(t)));
      expect(directory.tokenQueryStats).toEqual({ lookups: 3, queries: 1 });

      // The second device is retired in the database behind the bus's back (a lost message).
      const retired = devices[1];
      await sys.db.query('UPDATE devices SET retired_at = now() WHERE id = $1', [retired?.deviceId]);

      vi.setSystemTime(Date.now() + ttlMs + 1_000);
      const served = await Promise.all(tokens.map((t) => directory.byTokenHash(t)));
      expect(served.map((e) => e?.deviceId)).toEqual(devices.slice(0, 3).map((d) => d.deviceId));
      expect(directory.tokenQueryStats.queries).toBe(1);
      await vi.waitFor(() => expect(directory.tokenQueryStats).toEqual({ lookups: 6, queries: 2 }), {
        timeout: 10_000,
      });
      // The re-read found the retirement; the others are fresh again and cost nothing.
      const after = await Promise.all(tokens.map((t) => directory.byTokenHash(t)));
      expect(after.map((e) => e?.deviceId)).toEqual([devices[0]?.deviceId, undefined, devices[2]?.deviceId]);
      expect(directory.tokenQueryStats.queries).toBe(2);

      // Stale for more than a second TTL: looked up before answering.
      vi.setSystemTime(Date.now() + 2 * ttlMs + 1_000);
      const late = await directory.byTokenHash(tokens[0] ?? '');
      expect(late?.deviceId).toBe(devices[0]?.deviceId);
      expect(directory.tokenQueryStats).toEqual({ lookups: 7, queries: 3 });
    } finally {
      vi.useRealTimers();
      await sys.db.query('UPDATE devices SET retired_at = NULL WHERE id = $1', [devices[1]?.deviceId]);
    }
  });

  it('after invalidateAll (the bus resumed) looks every cached token and identifier up again before answering', async () => {
    const directory = new DeviceDirectory(sys.db, 600_000);
    const retired = devices[2];
    const kept = devices[3];
    const tokens = [retired, kept].map((d) => hashToken(d?.token ?? ''));
    const identifiers = [retired, kept].map((d) => d?.identifier ?? '');
    await Promise.all(tokens.map((t) => directory.byTokenHash(t)));
    await directory.lookup(identifiers);
    try {
      // Retired behind the bus's back (its `device-changed` lost in an outage): the cache still has it.
      await sys.db.query('UPDATE devices SET retired_at = now() WHERE id = $1', [retired?.deviceId]);
      expect((await directory.byTokenHash(tokens[0] ?? ''))?.deviceId).toBe(retired?.deviceId);
      expect([...(await directory.lookup(identifiers)).keys()]).toEqual(identifiers);

      directory.invalidateAll();
      const queries = directory.tokenQueryStats.queries;
      const found = await Promise.all(tokens.map((t) => directory.byTokenHash(t)));
      expect(found.map((e) => e?.deviceId)).toEqual([undefined, kept?.deviceId]);
      expect(directory.tokenQueryStats.queries).toBe(queries + 1);
      expect([...(await directory.lookup(identifiers)).keys()]).toEqual([kept?.identifier]);
    } finally {
      await sys.db.query('UPDATE devices SET retired_at = NULL WHERE id = $1', [retired?.deviceId]);
    }
  });
});
