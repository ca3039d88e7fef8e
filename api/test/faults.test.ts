import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSystem } from '@vigia/api';
import { openPostgres } from '@vigia/db';
import { createScratchDatabase, TEST_PG_ADMIN_URL } from '@vigia/db/testing';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { Gt06Uplink } from '../../devices/src/emulators/gt06/gt06-uplink.js';
import { type Gt06Profile, loadEmulatorProfile } from '../../devices/src/emulators/profiles/emulator-profile.js';
import { emulatedImei } from '../../devices/src/emulators/teltonika/imei.js';
import { freePort } from '../../devices/test/support.js';
import { ENTRY, spawnSystem } from './processes.js';
import { api, registerVehicle } from './support.js';
import { TcpProxy } from './tcp-proxy.js';

const ADMIN_TOKEN = 'faults-test-admin-token-0042';
type Device = Awaited<ReturnType<typeof registerVehicle>>;

/** Devices streaming batches with increasing timestamps; remembers every record it saw acknowledged. */
function streamer(client: { url: string; adminToken: string }, devices: Device[]) {
  const acked = new Set<string>();
  const ackedAt: number[] = [];
  let stop = false;
  // Far enough back that no lane reaches the future-timestamp limit however fast it streams.
  const t0 = Date.now() - 6 * 3_600_000;
  const lanes = devices.map(async (dev, lane) => {
    for (let i = 0; !stop; i++) {
      const batch = Array.from({ length: 10 }, (_, j) => ({
        deviceId: dev.identifier,
        ts: new Date(t0 + (i * 10 + j) * 1000 + lane).toISOString(),
        lat: -23.55 - j * 1e-4,
        lon: -46.63,
      }));
      try {
        const res = await api<{ rejected: { index: number }[] }>(client, 'POST', '/v1/telemetry', batch, dev.token);
        if (res.status === 200) {
          const rejected = new Set(res.body.rejected.map((r) => r.index));
          expect(rejected.size).toBe(0);
          for (const r of batch) acked.add(`${dev.deviceId}|${r.ts}`);
          ackedAt.push(Date.now());
        } else {
          await new Promise((r) => setTimeout(r, 50)); // 503: a real device backs off and re-sends
          i--;
        }
      } catch {
        await new Promise((r) => setTimeout(r, 50)); // the server is gone: retry the same batch
        i--;
      }
    }
  });
  return {
    acked,
    ackedAt,
    async stop() {
      stop = true;
      await Promise.all(lanes);
    },
  };
}

async function storedKeys(url: string): Promise<{ keys: Set<string>; rows: number }> {
  const db = openPostgres(url, 1);
  try {
    const { rows } = await db.query<{ device_id: string; ts: Date }>('SELECT device_id, ts FROM telemetry');
    return { keys: new Set(rows.map((r) => `${r.device_id}|${r.ts.toISOString()}`)), rows: rows.length };
  } finally {
    await db.close();
  }
}

/**
 * Emulated GT06 trackers streaming one position at a time, each with a later second: a position
 * counts as acknowledged when the gateway echoed its packet's serial (the device's only proof).
 * The trackers' retry clock runs 5× fast so their backoff after the kill stays within the test.
 */
function gt06Streamer(port: number, devices: Device[]) {
  const acked = new Set<string>();
  const profile = loadEmulatorProfile('gt06-default') as Gt06Profile;
  const log = pino({ level: 'silent' });
  const base = Date.now();
  const now = () => base + (Date.now() - base) * 5;
  let stop = false;
  const t0 = Math.floor((Date.now() - 6 * 3_600_000) / 1000) * 1000;
  const uplinks = devices.map(
    (dev) =>
      new Gt06Uplink({
        host: '127.0.0.1',
        port,
        imei: dev.identifier,
        profile,
        log,
        now,
        onAcknowledged: (s) => acked.add(`${dev.deviceId}|${new Date(s.ts).toISOString()}`),
      }),
  );
  const lanes = uplinks.map(async (uplink, lane) => {
    for (let i = 0; !stop; ) {
      while (uplink.pending < 10) {
        const ts = new Date(t0 + i++ * 1000).toISOString();
        uplink.enqueue({ deviceId: devices[lane]?.identifier ?? '', ts, lat: -23.55 - (i % 10) * 1e-4, lon: -46.63 });
      }
      await uplink.flush();
      await new Promise((r) => setTimeout(r, 20));
    }
  });
  return {
    acked,
    async stop() {
      stop = true;
      await Promise.all(lanes);
      await Promise.all(uplinks.map((u) => u.close()));
    },
  };
}

/** Polls `done` every 50 ms for up to `timeoutMs`; the assertions after it say what was missing. */
async function until(done: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
}

/**
 * The SIGKILL drill: the whole system process killed mid-stream and started again on the same
 * ports (the devices find it again on their own); every record a device saw acknowledged, before
 * or after the kill, must be stored, and stored once.
 */
async function killWhileStreaming(
  label: string,
  extraEnv: Record<string, string>,
  startStream: (url: string) => Promise<{ acked: Set<string>; stop(): Promise<void> }>,
) {
  const scratch = await createScratchDatabase();
  const dataDir = await mkdtemp(join(tmpdir(), 'vigia-kill-'));
  const env = {
    DATA_DIR: dataDir,
    ADMIN_TOKEN,
    DEMO: 'off',
    DATABASE_URL: scratch.url,
    INGEST_BATCH_MAX_WAIT_MS: '20',
    ...extraEnv,
  };
  try {
    const first = await spawnSystem(ENTRY.all, env);
    const port = new URL(first.url).port;
    const stream = await startStream(first.url);
    // Killed mid-stream: once a fair number is acknowledged, however long a loaded machine takes.
    await until(() => stream.acked.size > 50, 60_000);
    first.child.kill('SIGKILL');
    await first.exited;
    const ackedAtKill = stream.acked.size;
    const second = await spawnSystem(ENTRY.all, { ...env, PORT: port });
    // The devices reconnect to the new process and go on: wait until it has acknowledged more.
    await until(() => stream.acked.size > ackedAtKill + 50, 60_000);
    await stream.stop();
    second.child.kill('SIGTERM');
    await second.exited;
    const { keys, rows } = await storedKeys(scratch.url);
    const lost = [...stream.acked].filter((k) => !keys.has(k));
    console.log(
      `SIGKILL (${label}): ${ackedAtKill} acknowledged before the kill, ${stream.acked.size} in all, ${rows} stored, ${lost.length} lost`,
    );
    expect(ackedAtKill).toBeGreaterThan(50);
    expect(stream.acked.size).toBeGreaterThan(ackedAtKill);
    expect(lost).toEqual([]);
    expect(keys.size).toBe(rows);
  } finally {
    await scratch.drop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

describe('faults', () => {
  it('loses nothing acknowledged when the ingest process is killed with SIGKILL and restarted', async () => {
    await killWhileStreaming('HTTP', {}, async (url) => {
      const client = { url, adminToken: ADMIN_TOKEN };
      const devices = await Promise.all([0, 1, 2, 3].map(() => registerVehicle(client)));
      return streamer(client, devices);
    });
  }, 240_000);

  it('loses nothing a GT06 tracker saw echoed when the ingest process is killed while 100 of them stream', async () => {
    const gt06Port = await freePort();
    await killWhileStreaming('GT06', { GT06_PORT: String(gt06Port) }, async (url) => {
      const client = { url, adminToken: ADMIN_TOKEN };
      // One operator for the fleet (created by the first registration), then GT06 trackers.
      const operatorId = `op-gt06-${Math.random().toString(36).slice(2, 8)}`;
      const register = async (i: number) => {
        const dev = await registerVehicle(client, { operatorId, identifier: emulatedImei(9_000_000 + i) });
        const patched = await api(client, 'PATCH', `/v1/devices/${dev.deviceId}`, {
          protocol: 'gt06',
          profile: 'gt06-default',
        });
        if (patched.status !== 200) throw new Error(`device ${dev.deviceId}: ${JSON.stringify(patched.body)}`);
        return dev;
      };
      const devices = [
        await register(0),
        ...(await Promise.all(Array.from({ length: 99 }, (_, i) => register(i + 1)))),
      ];
      return gt06Streamer(gt06Port, devices);
    });
  }, 240_000);

  it('spools while the database is unreachable for 10 s and drains it after, losing nothing', async () => {
    const scratch = await createScratchDatabase();
    const target = new URL(TEST_PG_ADMIN_URL);
    const proxy = new TcpProxy(target.hostname, Number(target.port || 5432));
    await proxy.start();
    const viaProxy = new URL(scratch.url);
    viaProxy.host = `127.0.0.1:${proxy.port}`;
    const dataDir = await mkdtemp(join(tmpdir(), 'vigia-outage-'));
    const spoolDir = join(dataDir, 'spool');
    const sys = await startSystem({
      PORT: '0',
      OSMAND_PORT: '0',
      TELTONIKA_PORT: '0',
      GT06_PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      DEMO: 'off',
      LOG_LEVEL: 'silent',
      ADMIN_TOKEN,
      DATABASE_URL: viaProxy.toString(),
      SPOOL_DIR: spoolDir,
    });
    try {
      const client = { url: sys.url, adminToken: ADMIN_TOKEN };
      const devices = await Promise.all([0, 1, 2].map(() => registerVehicle(client)));
      const stream = streamer(client, devices);
      await new Promise((r) => setTimeout(r, 1000));
      proxy.cut();
      const cutAt = Date.now();
      await new Promise((r) => setTimeout(r, 2000));
      const ready = await api<{ checks: { database: string } }>(client, 'GET', '/ready', undefined, null);
      expect(ready.status).toBe(503);
      expect(ready.body.checks.database).toBe('unreachable');
      expect((await readdir(spoolDir)).length).toBeGreaterThan(0);
      await new Promise((r) => setTimeout(r, 8000));
      proxy.restore();
      const restoredAt = Date.now();
      const ackedDuringOutage = stream.ackedAt.filter((t) => t > cutAt + 500 && t < restoredAt).length;
      await new Promise((r) => setTimeout(r, 1500));
      await stream.stop();
      // The spool drains once the database answers again.
      const deadline = Date.now() + 20_000;
      while ((await readdir(spoolDir)).some((f) => f.endsWith('.ndjson')) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 200));
      }
      const drainedMs = Date.now() - restoredAt;
      const { keys, rows } = await storedKeys(scratch.url);
      const lost = [...stream.acked].filter((k) => !keys.has(k));
      console.log(
        `outage: ${ackedDuringOutage} batches acknowledged during the 10 s outage, ${stream.acked.size} records acknowledged, ${rows} stored, ${lost.length} lost, spool drained ≤ ${drainedMs} ms after the database came back`,
      );
      expect(ackedDuringOutage).toBeGreaterThan(10);
      expect(lost).toEqual([]);
      expect(keys.size).toBe(rows);
      expect((await readdir(spoolDir)).filter((f) => f.endsWith('.ndjson'))).toEqual([]);
    } finally {
      await sys.close();
      await proxy.stop();
      await scratch.drop();
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 90_000);
});
