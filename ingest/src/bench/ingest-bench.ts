/**
 * `npm run bench:ingest`: records per second through `POST /v1/telemetry` into PostgreSQL at
 * batch sizes 1, 100 and 1000, the same rows loaded by a bare COPY as the ceiling, and the
 * Teltonika TCP path and the GT06 (Concox) TCP path with 1 000 devices connected at once each
 * (records/s, and the ingest process's CPU per record from /proc). The
 * ingest service runs as its own process (the built `ingest/dist/main.js`), so the load
 * generator's cost is not counted against it; the database is a scratch one on the local
 * server (TEST_PG_URL, default the machine's PostgreSQL), dropped at the end. A script that
 * prints figures, not a test. BENCH_PATHS (comma-separated: http, copy, teltonika, gt06; default
 * all) runs only some paths, e.g. on a shared machine.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { hashToken } from '@vigia/core';
import { createScratchDatabase } from '@vigia/db/testing';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { location22, login } from '../gateways/gt06/gt06-device-packets.js';
import { encodeImeiHandshake, encodeTcpFrame } from '../gateways/teltonika/avl-encoder.js';
import { type AvlRecord, CODEC_8_EXTENDED } from '../gateways/teltonika/avl-record.js';

const DEVICES = 200;
const ADMIN_TOKEN = 'bench-admin-token-0123456789';
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const RECORDS: Record<number, number> = { 1: 20_000, 100: 200_000, 1000: 400_000 };
const PATHS = new Set((process.env.BENCH_PATHS ?? 'http,copy,teltonika,gt06').split(',').map((s) => s.trim()));

interface Sample {
  deviceId: string;
  ts: string;
  lat: number;
  lon: number;
  speedKmh: number;
  headingDeg: number;
  ignition: boolean;
  passengers: number;
  meter: { state: 'hired'; tariff: 1; fareCents: number; tripId: string };
  tacho: { speedKmh: number; driverId: string };
}

function makeSamples(count: number, startMs: number, run: number): Sample[] {
  return Array.from({ length: count }, (_, i) => {
    const d = i % DEVICES;
    const step = Math.floor(i / DEVICES);
    return {
      deviceId: `BENCH-${d}`,
      ts: new Date(startMs + run * 86_400_000 + step * 1000).toISOString(),
      lat: -15.79 + step * 1e-5,
      lon: -47.88 + d * 1e-3,
      speedKmh: 40,
      headingDeg: 90,
      ignition: true,
      passengers: 2,
      meter: { state: 'hired', tariff: 1, fareCents: 500 + step, tripId: `t-${d}` },
      tacho: { speedKmh: 39, driverId: `D-${d}` },
    };
  });
}

async function main() {
  const scratch = await createScratchDatabase('vigia_bench');
  const child = spawn(process.execPath, [new URL('../main.js', import.meta.url).pathname], {
    env: {
      PATH: process.env.PATH ?? '',
      DATABASE_URL: scratch.url,
      ADMIN_TOKEN,
      PORT: '0',
      OSMAND_PORT: '0',
      TELTONIKA_PORT: '0',
      GT06_PORT: '0',
      // info: the start-up lines carry the gateway ports.
      LOG_LEVEL: 'info',
      HOST: '127.0.0.1',
      INGEST_MAX_PENDING_RECORDS: '1000000',
      ...(process.env.INGEST_BATCH_MAX_WAIT_MS
        ? { INGEST_BATCH_MAX_WAIT_MS: process.env.INGEST_BATCH_MAX_WAIT_MS }
        : {}),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let url = '';
  let teltonikaPort = 0;
  let gt06Port = 0;
  for await (const line of createInterface({ input: child.stdout! })) {
    const entry = JSON.parse(line) as { msg?: string; url?: string; port?: number };
    if (entry.msg === 'Teltonika gateway listening (TCP)' && entry.port) teltonikaPort = entry.port;
    if (entry.msg === 'GT06 gateway listening (TCP)' && entry.port) gt06Port = entry.port;
    if (entry.msg === 'ingest service running' && entry.url) {
      url = entry.url;
      break;
    }
  }
  // Keep draining the service's log so a full pipe never stalls it.
  child.stdout?.resume();
  const db = new pg.Client({ connectionString: scratch.url });
  await db.connect();
  const tokens: string[] = [];
  try {
    await db.query(`INSERT INTO operators (id, name, pack) VALUES ('bench', 'Bench', 'df-taxi')`);
    const rows = Array.from({ length: DEVICES }, (_, d) => {
      const token = `bench-device-token-${d}`;
      tokens.push(token);
      return { d, hash: hashToken(token) };
    });
    await db.query(
      `INSERT INTO vehicles (id, plate, pack, service_type, capacity, operator_id)
       SELECT 'v' || d, 'BEN' || lpad(d::text, 4, '0'), 'df-taxi', 'taxi', 4, 'bench' FROM unnest($1::int[]) d`,
      [rows.map((r) => r.d)],
    );
    await db.query(
      `INSERT INTO devices (id, vehicle_id, identifier, token_hash)
       SELECT 'd' || d, 'v' || d, 'BENCH-' || d, h FROM unnest($1::int[], $2::text[]) AS x(d, h)`,
      [rows.map((r) => r.d), rows.map((r) => r.hash)],
    );

    if (PATHS.has('http') || PATHS.has('copy')) {
      console.log(`HTTP ingest into PostgreSQL, ${DEVICES} devices, ${CONCURRENCY} concurrent clients`);
      console.log('batch size | records | seconds | records/s');
    }
    const startMs = Date.now() - 30 * 86_400_000;
    // Each run writes its own day, so no run's rows are duplicates of another's.
    let run = 0;
    for (const size of PATHS.has('http') ? [1, 100, 1000] : []) {
      run++;
      const samples = makeSamples(RECORDS[size] ?? 10_000, startMs, run);
      const bodies: string[] = [];
      for (let i = 0; i < samples.length; i += size) bodies.push(JSON.stringify(samples.slice(i, i + size)));
      let next = 0;
      let accepted = 0;
      const t = performance.now();
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          for (let i = next++; i < bodies.length; i = next++) {
            const res = await fetch(`${url}/v1/telemetry`, {
              method: 'POST',
              headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
              body: bodies[i],
            });
            const body = (await res.json()) as { accepted?: number };
            if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${JSON.stringify(body).slice(0, 300)}`);
            accepted += body.accepted ?? 0;
          }
        }),
      );
      const s = (performance.now() - t) / 1000;
      if (accepted !== samples.length) throw new Error(`accepted ${accepted} of ${samples.length}`);
      console.log(
        `${String(size).padStart(10)} | ${String(samples.length).padStart(7)} | ${s.toFixed(2).padStart(7)} | ${Math.round(samples.length / s)}`,
      );
    }

    if (PATHS.has('copy')) await benchCopy(scratch.url, startMs, ++run);
    const pid = child.pid as number;
    if (PATHS.has('teltonika')) await benchTeltonika(db, teltonikaPort, startMs + 10 * 86_400_000, pid);
    if (PATHS.has('gt06')) await benchGt06(db, gt06Port, startMs + 12 * 86_400_000, pid);
  } finally {
    await db.end();
    child.kill('SIGTERM');
    await once(child, 'exit');
    await scratch.drop();
  }
}

/** The ceiling: the same kind of rows, straight into the table by COPY on one connection. */
async function benchCopy(url: string, startMs: number, run: number): Promise<void> {
  const copyRows = makeSamples(RECORDS[1000] ?? 100_000, startMs, run);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const t = performance.now();
  const lines = Readable.from(
    (function* () {
      for (const r of copyRows) {
        yield `${r.ts}\td${r.deviceId.slice(6)}\tv${r.deviceId.slice(6)}\t${new Date().toISOString()}\t${r.lat}\t${r.lon}\t${r.speedKmh}\t${r.headingDeg}\t\\N\tt\t\\N\t${r.passengers}\t\\N\t\\N\t\\N\thired\t1\t${r.meter.fareCents}\t${r.meter.tripId}\t${r.tacho.speedKmh}\t${r.tacho.driverId}\t0\t0\n`;
      }
    })(),
  );
  await pipeline(
    lines,
    client.query(
      copyFrom(`COPY telemetry (ts, device_id, vehicle_id, received_at, lat, lon, speed_kmh, heading_deg, accuracy_m,
        ignition, door_open, passengers, children_under7, boardings, alightings, meter_state, meter_tariff,
        meter_fare_cents, meter_trip_id, tacho_speed_kmh, tacho_driver_id, dist_m, dt_s) FROM STDIN`),
    ),
  );
  const s = (performance.now() - t) / 1000;
  await client.end();
  console.log(
    `bare COPY  | ${String(copyRows.length).padStart(7)} | ${s.toFixed(2).padStart(7)} | ${Math.round(copyRows.length / s)}`,
  );
}

/** A fleet of trackers registered for one protocol gateway, each in a vehicle of its own. */
interface TrackerFleet {
  protocol: 'teltonika' | 'gt06';
  devices: number;
  /**
   * How device `n`'s names are made: registry ids `<registry>v<n>` (vehicle) and `<registry>d<n>`
   * (device), plate `<plate>` and `n` on 4 digits, IMEI `<imei>` and `n` on 13 digits.
   */
  prefixes: { registry: string; plate: string; imei: string };
  vehicle: { pack: string; serviceType: string; capacity: number };
}

/**
 * Buses on Teltonika trackers, taxis on GT06 ones: BENCH_TELTONIKA_DEVICES and BENCH_GT06_DEVICES
 * of them, 1 000 each by default.
 */
const FLEETS: Record<TrackerFleet['protocol'], TrackerFleet> = {
  teltonika: {
    protocol: 'teltonika',
    devices: Number(process.env.BENCH_TELTONIKA_DEVICES ?? 1000),
    prefixes: { registry: 't', plate: 'TLT', imei: '35' },
    vehicle: { pack: 'sp-fretamento', serviceType: 'fretamento-continuo', capacity: 44 },
  },
  gt06: {
    protocol: 'gt06',
    devices: Number(process.env.BENCH_GT06_DEVICES ?? 1000),
    prefixes: { registry: 'g', plate: 'GTS', imei: '86' },
    vehicle: { pack: 'df-taxi', serviceType: 'taxi', capacity: 4 },
  },
};

const imeiOf = (fleet: TrackerFleet, d: number) => `${fleet.prefixes.imei}${String(d).padStart(13, '0')}`;

/** One benchmark device's side of its protocol: what it says first, and how it reads the gateway's answers. */
interface BenchDevice {
  greeting: Buffer;
  /**
   * Reads one answer at the start of `received`: undefined while it is incomplete; otherwise the
   * bytes it took, what to send next, and, once the device is through, the records acknowledged.
   */
  answer(received: Buffer): { consumed: number; send?: Buffer; done?: number } | undefined;
}

/** Runs `device` against the gateway on `port` until it is through; resolves with the records acknowledged. */
function runBenchDevice(port: number, name: string, device: BenchDevice): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let buffer = Buffer.alloc(0);
    socket.setTimeout(60_000, () => socket.destroy(new Error(`${name} timed out`)));
    socket.on('error', reject);
    socket.on('connect', () => socket.write(device.greeting));
    socket.on('data', (chunk) => {
      buffer = Buffer.concat([buffer, chunk]);
      try {
        for (let step = device.answer(buffer); step; step = device.answer(buffer)) {
          buffer = buffer.subarray(step.consumed);
          if (step.send) socket.write(step.send);
          if (step.done !== undefined) {
            socket.end();
            resolve(step.done);
            return;
          }
        }
      } catch (err) {
        socket.destroy();
        reject(err);
      }
    });
  });
}

/**
 * Registers `fleet`, runs all its devices against the gateway on `port` at once, and prints
 * records/s and the ingest process's CPU per record.
 */
async function benchTrackers(
  db: pg.Client,
  pid: number,
  port: number,
  fleet: TrackerFleet,
  title: string,
  device: (d: number) => BenchDevice,
): Promise<void> {
  const { prefixes, devices } = fleet;
  await db.query(
    `INSERT INTO vehicles (id, plate, pack, service_type, capacity, operator_id)
     SELECT $2::text || 'v' || d, $3::text || lpad(d::text, 4, '0'), $4::text, $5::text, $6::int, 'bench'
     FROM generate_series(0, $1::int - 1) d`,
    [devices, prefixes.registry, prefixes.plate, fleet.vehicle.pack, fleet.vehicle.serviceType, fleet.vehicle.capacity],
  );
  await db.query(
    `INSERT INTO devices (id, vehicle_id, identifier, protocol, token_hash)
     SELECT $2::text || 'd' || d, $2::text || 'v' || d, $3::text || lpad(d::text, 13, '0'), $4::text, md5(random()::text)
     FROM generate_series(0, $1::int - 1) d`,
    [devices, prefixes.registry, prefixes.imei, fleet.protocol],
  );
  const t = performance.now();
  const cpu = cpuSeconds(pid);
  const runs = Array.from({ length: devices }, (_, d) =>
    runBenchDevice(port, `${fleet.protocol} device ${d}`, device(d)),
  );
  const acked = (await Promise.all(runs)).reduce((a, b) => a + b, 0);
  const s = (performance.now() - t) / 1000;
  const cpuUs = ((cpuSeconds(pid) - cpu) / acked) * 1e6;
  const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM telemetry WHERE device_id LIKE $1', [
    `${prefixes.registry}d%`,
  ]);
  console.log(title);
  console.log(`acknowledged | stored | seconds | records/s | ingest CPU µs/record`);
  console.log(
    `${String(acked).padStart(12)} | ${String(rows[0]?.n).padStart(6)} | ${s.toFixed(2).padStart(7)} | ${String(Math.round(acked / s)).padStart(9)} | ${cpuUs.toFixed(0)}`,
  );
}

/** User + system CPU seconds of a process so far (Linux /proc; clock ticks at the usual 100 Hz). */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * Teltonika Codec 8 Extended over TCP: BENCH_TELTONIKA_DEVICES devices connected at once, each
 * sending packets of records and waiting for each packet's ACK (sent only once the records are
 * durable).
 */
async function benchTeltonika(db: pg.Client, port: number, startMs: number, pid: number): Promise<void> {
  const fleet = FLEETS.teltonika;
  const packets = 10;
  const perPacket = 10;
  const record = (d: number, k: number): AvlRecord => ({
    timestampMs: startMs + k * 1000,
    priority: 0,
    gps: {
      longitude: -46.63 + d * 1e-4,
      latitude: -23.55 - k * 1e-5,
      altitudeM: 760,
      angleDeg: 180,
      satellites: 9,
      speedKmh: 40,
    },
    eventIoId: 0,
    io: [{ id: 239, kind: 'int', bytes: 1, value: 1n }],
  });
  const device = (d: number): BenchDevice => {
    let handshaken = false;
    let sent = 0;
    let acked = 0;
    const nextPacket = () => {
      const k = sent++;
      return encodeTcpFrame(
        CODEC_8_EXTENDED,
        Array.from({ length: perPacket }, (_, j) => record(d, k * perPacket + j)),
      );
    };
    return {
      greeting: encodeImeiHandshake(imeiOf(fleet, d)),
      answer(received) {
        if (!handshaken) {
          if (received.length < 1) return undefined;
          if (received[0] !== 1) throw new Error(`device ${d} refused`);
          handshaken = true;
          return { consumed: 1, send: nextPacket() };
        }
        if (received.length < 4) return undefined;
        acked += received.readUInt32BE(0);
        return sent < packets ? { consumed: 4, send: nextPacket() } : { consumed: 4, done: acked };
      },
    };
  };
  await benchTrackers(
    db,
    pid,
    port,
    fleet,
    `Teltonika Codec 8E over TCP, ${fleet.devices} devices connected at once, ${packets} packets of ${perPacket} records each`,
    device,
  );
}

/**
 * GT06 over TCP: BENCH_GT06_DEVICES devices connected at once, each logging in, then sending its
 * positions (0x22) in windows of 10 packets (one record each) and waiting for their serial echoes,
 * which come only once the records are durable.
 */
async function benchGt06(db: pg.Client, port: number, startMs: number, pid: number): Promise<void> {
  const fleet = FLEETS.gt06;
  const windows = 10;
  const perWindow = 10;
  const ANSWER = 10;
  const device = (d: number): BenchDevice => {
    let answers = 0;
    let sent = 0;
    const nextWindow = () => {
      const packets: Buffer[] = [];
      for (let j = 0; j < perWindow; j++, sent++) {
        const fix = {
          clockMs: startMs + sent * 1000,
          lat: -15.79 - sent * 1e-5,
          lon: -47.88 + d * 1e-4,
          speedKmh: 40,
          course: 180,
        };
        packets.push(location22(fix, true, (sent + 1) & 0xffff));
      }
      return Buffer.concat(packets);
    };
    return {
      greeting: login(imeiOf(fleet, d), 0),
      answer(received) {
        if (received.length < ANSWER) return undefined;
        answers++;
        // The login's answer, then each window's last answer opens the next window.
        if (answers !== 1 && (answers - 1) % perWindow !== 0) return { consumed: ANSWER };
        return sent < windows * perWindow
          ? { consumed: ANSWER, send: nextWindow() }
          : { consumed: ANSWER, done: answers - 1 };
      },
    };
  };
  await benchTrackers(
    db,
    pid,
    port,
    fleet,
    `GT06 (Concox) 0x22 over TCP, ${fleet.devices} devices connected at once, ${windows} windows of ${perWindow} packets (one record each)`,
    device,
  );
}

await main();
