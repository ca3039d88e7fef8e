import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Telemetry } from '@vigia/core';
import { TEST_REDIS_URL } from '@vigia/db/testing';
import { loadRegistry } from '@vigia/ingest';
import { createRuleEngine, type ViolationEvent } from '@vigia/rules';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, registerVehicle, startTestSystem, type TestSystem, waitFor } from './support.js';

/**
 * Partitioned rules (RULES_MODE=partitioned): two rule worker processes share the partitions;
 * one is killed with SIGKILL mid-stream. The other takes its partitions over once their leases
 * lapse, restores their checkpoints and replays the streams from there, and the violations stored
 * are exactly those an uninterrupted engine finds in the same telemetry. The takeover time is
 * printed, not asserted (it is the lease TTL plus a lease round, on a loaded machine more).
 */

const WORKER = fileURLToPath(new URL('../../ingest/dist/rules/partitions/worker-main.js', import.meta.url));
const PARTITIONS = 8;
const VEHICLES = 8;
const LEASE_TTL_MS = 3000;

interface Worker {
  child: ChildProcess;
  id: string;
  logs: string[];
  exited: Promise<unknown>;
}

describe('rule workers: kill -9 of one mid-stream', () => {
  let sys: TestSystem;
  let redis: Redis;
  const prefix = `test-workers-${Math.random().toString(36).slice(2, 8)}`;
  const workers: Worker[] = [];
  const settings = {
    REDIS_URL: TEST_REDIS_URL,
    REDIS_PREFIX: prefix,
    RULES_MODE: 'partitioned',
    RULES_PARTITIONS: String(PARTITIONS),
    RULES_LEASE_TTL_MS: String(LEASE_TTL_MS),
    RULES_CHECKPOINT_INTERVAL_MS: '500',
  };

  function startWorker(): Promise<Worker> {
    if (!existsSync(WORKER)) throw new Error(`${WORKER} is missing: run \`npm run build\` first`);
    const child = spawn(process.execPath, [WORKER], {
      env: {
        PATH: process.env.PATH ?? '',
        ...settings,
        DATABASE_URL: sys.config.DATABASE_URL ?? '',
        DATA_DIR: sys.config.DATA_DIR,
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const logs: string[] = [];
    const exited = new Promise((resolve) => child.on('exit', resolve));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no rule worker within 30 s:\n${logs.join('\n')}`)), 30_000);
      let buffer = '';
      child.stdout?.on('data', (chunk: Buffer) => {
        buffer += chunk.toString();
        for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
          const line = buffer.slice(0, nl);
          buffer = buffer.slice(nl + 1);
          logs.push(line);
          const entry = JSON.parse(line) as { msg?: string; workerId?: string };
          if (entry.msg === 'rule worker running' && entry.workerId) {
            clearTimeout(timer);
            resolve({ child, id: entry.workerId, logs, exited });
          }
        }
      });
      child.stderr?.on('data', (chunk: Buffer) => logs.push(chunk.toString()));
      void exited.then((code) => reject(new Error(`rule worker exited with ${String(code)}:\n${logs.join('\n')}`)));
    });
  }

  const owners = async (): Promise<(string | null)[]> =>
    Promise.all(Array.from({ length: PARTITIONS }, (_, p) => redis.get(`${prefix}:rules:lease:${p}`)));

  beforeAll(async () => {
    redis = new Redis(TEST_REDIS_URL);
    sys = await startTestSystem('postgres', settings);
  });
  afterAll(async () => {
    for (const w of workers) {
      if (w.child.exitCode === null && w.child.signalCode === null) {
        w.child.kill('SIGTERM');
        await w.exited;
      }
    }
    await sys?.stop();
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it('the survivor takes the dead worker’s partitions over and the violations equal an uninterrupted run’s', async () => {
    const devices: Awaited<ReturnType<typeof registerVehicle>>[] = [];
    const began = Date.now();
    const step = (what: string) => console.log(`rule workers test: ${what} at ${Date.now() - began} ms`);
    for (let i = 0; i < VEHICLES; i++) devices.push(await registerVehicle(sys));
    step('vehicles registered');
    workers.push(await startWorker(), await startWorker());
    step('workers started');
    const [a, b] = workers as [Worker, Worker];
    // Both hold a share before the stream starts (the first to start hands back the second's half).
    await waitFor(
      'both workers holding partitions',
      async () => {
        const o = await owners();
        return o.every((x) => x !== null) && o.includes(a.id) && o.includes(b.id);
      },
      30_000,
    ).catch((err: unknown) => {
      for (const w of workers) console.log(w.logs.slice(-30).join('\n'));
      throw err;
    });

    step('partitions shared');
    // Each taxi: three rides with 6 passengers in its 4 seats (DF_OVER_CAPACITY each), a sample
    // every 5 s, between free driving; stamped over the last 20 minutes, so no idle timer closes them.
    const t0 = Date.now() - 20 * 60_000;
    const ride = (d: (typeof devices)[number], v: number) =>
      Array.from({ length: 180 }, (_, i) => {
        const leg = Math.floor(i / 30);
        const loaded = leg % 2 === 1;
        return {
          deviceId: d.identifier,
          ts: new Date(t0 + i * 5000 + v * 100).toISOString(),
          lat: -15.7942 + i * 0.0003,
          lon: -47.8822 + v * 0.01,
          speedKmh: 30,
          passengers: loaded ? 6 : 0,
          meter: loaded
            ? { state: 'hired', tariff: 1, fareCents: 600 + i * 10, tripId: `trip-${v}-${leg}` }
            : { state: 'free' },
        };
      });
    const rides = devices.map((d, v) => ride(d, v));
    const send = async (from: number, to: number) => {
      for (const [v, d] of devices.entries()) {
        const res = await api<{ accepted: number }>(sys, 'POST', '/v1/telemetry', rides[v]?.slice(from, to), d.token);
        expect(res.body.accepted).toBe(to - from);
      }
    };
    const stored = async () => {
      const { rows } = await sys.db.query<{
        event_key: string;
        started_at: Date;
        ended_at: Date | null;
        phase: string;
        confidence: string;
      }>(
        `SELECT event_key, started_at, ended_at, phase, confidence FROM violations
         WHERE vehicle_id = ANY($1::text[]) ORDER BY event_key`,
        [devices.map((d) => d.vehicleId)],
      );
      return rows.map((r) => ({
        key: r.event_key,
        startedAt: new Date(r.started_at).toISOString(),
        endedAt: r.ended_at ? new Date(r.ended_at).toISOString() : null,
        phase: r.phase,
        confidence: r.confidence,
      }));
    };

    // The first third, judged in part by each worker; then a worker dies mid-stream, mid-run.
    await send(0, 60);
    await waitFor('violations judged before the kill', async () => (await stored()).length >= 2, 30_000);
    step('judging');
    // Into the second loaded ride: each taxi's over-capacity run is open when the worker dies.
    await send(60, 100);
    const victim = a;
    const victimPartitions = (await owners()).flatMap((o, p) => (o === victim.id ? [p] : []));
    expect(victimPartitions.length).toBeGreaterThan(0);
    victim.child.kill('SIGKILL');
    const killedAt = Date.now();
    await victim.exited;
    await send(100, 180);
    step('stream sent');

    await waitFor(
      'the survivor holding every partition',
      async () => (await owners()).every((o) => o === b.id),
      60_000,
    );
    console.log(
      `rule workers: ${victimPartitions.length} partitions of the killed worker taken over ${Date.now() - killedAt} ms after SIGKILL (lease TTL ${LEASE_TTL_MS} ms)`,
    );

    // What an uninterrupted engine finds in the same telemetry (the same registry, the defaults).
    const { registry } = await loadRegistry(sys.db, sys.log);
    const engine = createRuleEngine({ registry });
    const events: ViolationEvent[] = [];
    for (const [v, d] of devices.entries()) {
      for (const r of rides[v] ?? []) {
        const sample: Telemetry = {
          deviceId: d.deviceId,
          vehicleId: d.vehicleId,
          ts: new Date(r.ts),
          receivedAt: new Date(r.ts),
          lat: r.lat,
          lon: r.lon,
          speedKmh: r.speedKmh,
          headingDeg: null,
          accuracyM: null,
          ignition: null,
          doorOpen: null,
          passengers: r.passengers,
          childrenUnder7: null,
          boardings: null,
          alightings: null,
          meterState: r.meter.state as Telemetry['meterState'],
          meterTariff: 'tariff' in r.meter ? 1 : null,
          meterFareCents: 'fareCents' in r.meter ? (r.meter.fareCents ?? null) : null,
          meterTripId: 'tripId' in r.meter ? (r.meter.tripId ?? null) : null,
          tachoSpeedKmh: null,
          tachoDriverId: null,
        };
        events.push(...engine.ingest(sample));
      }
    }
    const latest = new Map<string, ViolationEvent['violation']>();
    for (const e of events) latest.set(e.violation.key, e.violation);
    const expected = [...latest.values()]
      .map((v) => ({
        key: v.key,
        startedAt: v.startedAt.toISOString(),
        endedAt: v.endedAt.toISOString(),
        phase: v.phase,
        confidence: v.confidence,
      }))
      .sort((x, y) => (x.key < y.key ? -1 : 1));
    expect(expected.filter((v) => v.key.includes('DF_OVER_CAPACITY'))).toHaveLength(3 * VEHICLES);

    const final = await waitFor(
      'the stored violations to match an uninterrupted run',
      async () => {
        const now = await stored();
        return JSON.stringify(now) === JSON.stringify(expected) ? now : undefined;
      },
      60_000,
    ).catch(async () => {
      for (const w of workers) console.log(w.logs.slice(-30).join('\n'));
      return stored();
    });
    expect(final).toEqual(expected);
  }, 240_000);
});
