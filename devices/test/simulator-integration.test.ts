import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { type RunningSystem, startSystem } from '@vigia/api';
import { ephemeralPorts } from '@vigia/core';
import { seedPgliteDataDir } from '@vigia/db/testing';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildRoster } from '../src/fleet/roster.js';
import { startSimulator } from '../src/simulator.js';

const vehicleListSchema = z.object({
  items: z.array(
    z.looseObject({
      id: z.string(),
      plate: z.string(),
      pack: z.string(),
      live: z.looseObject({ ts: z.string(), lat: z.number(), lon: z.number() }).nullable(),
    }),
  ),
});

const FLEET = 6;

/** A pino logger that keeps its lines, to check what the simulator logged. */
function capturingLogger() {
  const lines: { level: number; msg: string; code?: string }[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n')) if (line.trim()) lines.push(JSON.parse(line));
      done();
    },
  });
  return { log: pino({ level: 'debug' }, stream), lines };
}

async function liveVehicles(sys: RunningSystem) {
  // A server whose event loop lags sheds requests with 503 OVERLOADED and a Retry-After, as the
  // simulator's own client expects: on a loaded machine the test retries like any client would.
  for (let attempt = 1; ; attempt++) {
    const res = await fetch(`${sys.url}/v1/vehicles?limit=1000`, {
      headers: { authorization: `Bearer ${sys.adminToken}` },
    });
    if (res.status === 503 && attempt < 10) {
      await res.arrayBuffer();
      await new Promise((r) => setTimeout(r, 1000 * Number(res.headers.get('retry-after') ?? '1')));
      continue;
    }
    expect(res.status).toBe(200);
    return vehicleListSchema.parse(await res.json()).items;
  }
}

/** Poll until every simulated vehicle has a live position stamped after `since`. */
async function waitForLive(sys: RunningSystem, ids: readonly string[], since: number, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const items = await liveVehicles(sys);
    const fresh = ids.filter((id) => {
      const v = items.find((i) => i.id === id);
      return v?.live && Date.parse(v.live.ts) >= since;
    });
    if (fresh.length === ids.length) return items;
    if (Date.now() > deadline)
      throw new Error(`Only ${fresh.length}/${ids.length} vehicles live after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** The embedded system (PGlite in a fresh data directory), without its own demo fleet. */
async function startEmbeddedSystem(): Promise<{ sys: RunningSystem; stop(): Promise<void> }> {
  const dataDir = await mkdtemp(join(tmpdir(), 'vigia-devices-'));
  await seedPgliteDataDir(dataDir);
  const sys = await startSystem({
    ...ephemeralPorts(),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    DEMO: 'off',
    LOG_LEVEL: 'silent',
  });
  return {
    sys,
    async stop() {
      await sys.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

describe('the simulator against the real system', () => {
  let sys: RunningSystem;
  let stop: () => Promise<void> = async () => {};

  beforeAll(async () => {
    ({ sys, stop } = await startEmbeddedSystem());
  });

  afterAll(() => stop());

  it('registers the fleet, streams every vehicle live, and re-uses the registry after a restart', async () => {
    const ids = buildRoster(FLEET, Date.now()).entries.map((e) => e.vehicle.id);
    const first = capturingLogger();
    const t0 = Date.now();
    const sim = await startSimulator({
      apiUrl: sys.url,
      adminToken: sys.adminToken,
      vehicles: FLEET,
      intervalMs: 250,
      seed: 11,
      logger: first.log,
    });
    expect(sim.vehicles).toBe(FLEET);
    const items = await waitForLive(sys, ids, t0);
    for (const id of ids) {
      const v = items.find((i) => i.id === id);
      expect(v?.live, id).not.toBeNull();
      // Live positions are in the vehicle's city.
      const lat = v?.live?.lat ?? 0;
      if (v?.pack === 'df-taxi') expect(Math.abs(lat + 15.8)).toBeLessThan(0.3);
      if (v?.pack === 'belem-taxi') expect(Math.abs(lat + 1.4)).toBeLessThan(0.3);
      if (v?.pack === 'sp-fretamento') expect(Math.abs(lat + 23.55)).toBeLessThan(0.3);
    }
    await sim.stop();

    // A restart finds everything registered: it must re-use it (rotating device tokens), not fail.
    const second = capturingLogger();
    const t1 = Date.now();
    const again = await startSimulator({
      apiUrl: sys.url,
      adminToken: sys.adminToken,
      vehicles: FLEET,
      intervalMs: 250,
      seed: 12,
      logger: second.log,
    });
    await waitForLive(sys, ids, t1);
    await again.stop();

    const after = await liveVehicles(sys);
    expect(after.filter((v) => v.id.startsWith('sim-veh-'))).toHaveLength(FLEET);
    for (const { lines } of [first, second]) {
      // A 503 OVERLOADED retried after its Retry-After is the client doing its job on a loaded
      // machine, not a problem; anything else at warn or above is.
      const problems = lines.filter((l) => l.level >= 40 && l.code !== 'OVERLOADED');
      expect(problems, JSON.stringify(problems)).toEqual([]);
      expect(lines.some((l) => l.msg === 'simulated fleet registered')).toBe(true);
    }
  });
});

/**
 * The registration's retry after a lost answer: the API created the vehicles but the answer never
 * reached the simulator (a timeout or a reset connection on a loaded machine). The retry finds them
 * existing (409) and must take them as its own, not fail with ALREADY_EXISTS as it once did.
 */
describe('the simulator when the answer to a create is lost', () => {
  let sys: RunningSystem;
  let stop: () => Promise<void> = async () => {};
  let proxy: Server;
  let proxyUrl: string;
  const lost: string[] = [];

  beforeAll(async () => {
    ({ sys, stop } = await startEmbeddedSystem());
    const upstream = new URL(sys.url);
    // Forwards every request; the first POST /v1/vehicles is carried out by the API, and then its
    // client's connection is cut before the answer is passed on.
    proxy = createServer((req, res) => {
      const loseAnswer = req.method === 'POST' && req.url === '/v1/vehicles' && lost.length === 0;
      if (loseAnswer) lost.push(`${req.method} ${req.url}`);
      const forward = request(
        { host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers },
        (answer) => {
          if (loseAnswer) {
            answer.resume();
            answer.on('end', () => req.socket.destroy());
            return;
          }
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      forward.on('error', () => res.destroy());
      req.pipe(forward);
    });
    proxy.listen(0, '127.0.0.1');
    await once(proxy, 'listening');
    proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    proxy?.close();
    await stop();
  });

  it('retries, takes the vehicles it had created as its own and streams them', async () => {
    const ids = buildRoster(FLEET, Date.now()).entries.map((e) => e.vehicle.id);
    const { log, lines } = capturingLogger();
    const t0 = Date.now();
    const sim = await startSimulator({
      apiUrl: proxyUrl,
      adminToken: sys.adminToken,
      vehicles: FLEET,
      intervalMs: 250,
      seed: 13,
      logger: log,
    });
    try {
      expect(lost).toEqual(['POST /v1/vehicles']);
      const retried = lines.filter((l) => l.msg.startsWith('registration failed, retrying'));
      expect(retried.length).toBeGreaterThanOrEqual(1);
      expect(lines.some((l) => l.msg === 'simulated fleet registered')).toBe(true);
      await waitForLive(sys, ids, t0);
      const registered = (await liveVehicles(sys)).filter((v) => v.id.startsWith('sim-veh-'));
      expect(registered.map((v) => v.id).sort()).toEqual([...ids].sort());
      // Nothing failed beyond the one lost answer it retried (and overload, which clients retry).
      const problems = lines.filter(
        (l) => l.level >= 40 && l.code !== 'OVERLOADED' && !l.msg.startsWith('registration failed, retrying'),
      );
      expect(problems, JSON.stringify(problems)).toEqual([]);
    } finally {
      await sim.stop();
    }
  });
});
