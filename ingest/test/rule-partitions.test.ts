import type { Telemetry } from '@vigia/core';
import { TEST_REDIS_URL } from '@vigia/db/testing';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PartitionLeases } from '../src/rules/partitions/partition-leases.js';
import { partitionOf, ruleKeys } from '../src/rules/partitions/partitioning.js';
import { appendToPartitions, decodeEntry } from '../src/rules/partitions/sample-stream.js';

/** Partitioned rules' Redis parts, against a real Redis: the hash, the streams, leases, guarded checkpoints. */
describe('rule partitions on Redis', () => {
  let redis: Redis;
  const prefix = `test-partitions-${Math.random().toString(36).slice(2, 8)}`;
  const keys = ruleKeys(prefix);

  beforeAll(() => {
    redis = new Redis(TEST_REDIS_URL);
  });
  afterAll(async () => {
    const found = await redis.keys(`${prefix}:*`);
    if (found.length > 0) await redis.del(...found);
    await redis.quit();
  });

  it('hashes a vehicle to the same partition everywhere, spreading vehicles over all partitions', () => {
    // Fixed values: a change of the hash would move every vehicle's state away from its checkpoint.
    // (FNV-1a of the id, modulo the partitions.)
    expect([partitionOf('a', 64), partitionOf('veh-1', 64), partitionOf('TST0A01', 64)]).toEqual([44, 14, 20]);
    const counts = new Map<number, number>();
    for (let i = 0; i < 6400; i++) {
      const p = partitionOf(`vehicle-${i}`, 64);
      counts.set(p, (counts.get(p) ?? 0) + 1);
    }
    expect(counts.size).toBe(64);
    expect(Math.min(...counts.values())).toBeGreaterThan(50);
    expect(Math.max(...counts.values())).toBeLessThan(150);
  });

  it('appends samples to their partition streams and reads them back as they were', async () => {
    const sample = (vehicleId: string, s: number): Telemetry => ({
      deviceId: `dev-${vehicleId}`,
      vehicleId,
      ts: new Date(Date.UTC(2026, 2, 4, 13, 0, s)),
      receivedAt: new Date(Date.UTC(2026, 2, 4, 13, 0, s + 1)),
      lat: -15.79,
      lon: -47.88,
      speedKmh: 30,
      headingDeg: null,
      accuracyM: 5,
      ignition: true,
      doorOpen: false,
      passengers: 1,
      childrenUnder7: null,
      boardings: null,
      alightings: null,
      meterState: 'hired',
      meterTariff: 2,
      meterFareCents: 1200,
      meterTripId: 't-1',
      tachoSpeedKmh: null,
      tachoDriverId: null,
    });
    const samples = ['v-1', 'v-2', 'v-3', 'v-1'].map((v, i) => sample(v, i));
    await appendToPartitions(redis, prefix, 4, samples, (id) => (id === 'v-2' ? 'df-taxi' : undefined));
    const back: Telemetry[] = [];
    for (let p = 0; p < 4; p++) {
      for (const [, fields] of await redis.xrange(keys.stream(p), '-', '+')) {
        for (const s of decodeEntry(fields)) {
          expect(partitionOf(s.sample.vehicleId, 4)).toBe(p);
          expect(s.pack).toBe(s.sample.vehicleId === 'v-2' ? 'df-taxi' : null);
          back.push(s.sample);
        }
      }
    }
    const byTs = (a: Telemetry, b: Telemetry) => a.ts.getTime() - b.ts.getTime();
    expect(back.sort(byTs)).toEqual(samples);
    expect(() => decodeEntry(['s', JSON.stringify([[{ vehicleId: 'x' }, null]])])).toThrow();
  });

  it('gives a lease to one worker at a time, renewable only by its owner, free again once expired', async () => {
    const a = new PartitionLeases(redis, prefix, 8, 'worker-a', 300);
    const b = new PartitionLeases(redis, prefix, 8, 'worker-b', 300);
    expect(await a.tryAcquire(3)).toBe(true);
    expect(await b.tryAcquire(3)).toBe(false);
    expect(await b.renew(3)).toBe(false);
    expect(await a.renew(3)).toBe(true);
    expect(await a.owner(3)).toBe('worker-a');
    // a stops renewing (killed): its lease lapses and b takes the partition.
    await new Promise((r) => setTimeout(r, 400));
    expect(await b.tryAcquire(3)).toBe(true);
    expect(await a.renew(3)).toBe(false);
    await b.release(3);
    expect(await a.owner(3)).toBeNull();
  });

  it('writes a checkpoint only under the lease, trimming the stream it covers', async () => {
    const a = new PartitionLeases(redis, prefix, 8, 'worker-a', 5000);
    const b = new PartitionLeases(redis, prefix, 8, 'worker-b', 5000);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await redis.xadd(keys.stream(5), '*', 's', '[]')) ?? '');
    expect(await a.tryAcquire(5)).toBe(true);
    expect(await a.saveCheckpoint(5, Buffer.from([1, 2, 3]), ids[2] ?? '')).toBe(true);
    // b does not hold the lease: its write is refused and the checkpoint stays a's.
    expect(await b.saveCheckpoint(5, Buffer.from([9]), ids[4] ?? '')).toBe(false);
    const saved = await b.readCheckpoint(5);
    expect([...(saved.state ?? [])]).toEqual([1, 2, 3]);
    expect(saved.position).toBe(ids[2]);
    // Entries before the checkpoint's position are gone; the rest are there to replay.
    expect((await redis.xrange(keys.stream(5), '-', '+')).map(([id]) => id)).toEqual(ids.slice(2));
    expect(await b.readCheckpoint(6)).toEqual({ state: null, position: '0' });
  });

  it('shares the partitions among the live workers', async () => {
    const a = new PartitionLeases(redis, prefix, 64, 'share-a', 1000);
    const b = new PartitionLeases(redis, prefix, 64, 'share-b', 1000);
    const now = Date.now();
    expect(await a.heartbeat(now)).toBe(64);
    expect(await b.heartbeat(now)).toBe(32);
    // a's heartbeat is older than the TTL: it is dead, b takes everything.
    expect(await b.heartbeat(now + 1500)).toBe(64);
    await b.leave();
  });
});
