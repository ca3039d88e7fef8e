/**
 * `npm run bench:ingest`: what the ingest service costs per record on this machine, path by path:
 * one record per `POST /v1/telemetry` (how trackers send), batches of 1 000, and the Teltonika and
 * GT06 TCP gateways with every device connected at once; each with every rule of the vehicles'
 * packs on (the ingest's default), against a bare COPY of the same kind of rows in the same run.
 *
 * How it measures (README, Development):
 * - The ingest runs as its own process (the built `ingest/dist/main.js`) on a scratch database on
 *   the local server (TEST_PG_URL, default the machine's PostgreSQL), dropped at the end.
 * - HTTP load comes from autocannon in a child process of its own (http-load.ts), every request
 *   made before the clock starts, every record sent once; TCP devices are raw sockets here.
 * - Ingest CPU: from its /metrics (prom-client's process counters) or /proc, before the load and
 *   once the process is quiet after it (the rules judge after the ACK), so µs/record holds the
 *   rule work; the busy share is the CPU of the load window over its wall time.
 * - After each scenario the rows of its day are counted: lost = sent − stored.
 * A script that prints figures, not a test. Knobs: bench-options.ts (BENCH_PATHS, BENCH_SCALE, …).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { availableParallelism, loadavg } from 'node:os';
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { hashToken, sideBySideServiceEnv } from '@vigia/core';
import { createScratchDatabase } from '@vigia/db/testing';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { z } from 'zod';
import { benchOptions } from './bench-options.js';
import { COPY_COLUMNS, copyLine, makeSamples } from './bench-samples.js';
import { formatTable, recordsPerSecond, type ScenarioRow } from './bench-table.js';
import { type HttpLoadArgsInput, httpLoadMessageSchema } from './http-load-protocol.js';
import { type CpuReader, type IngestCounters, ingestCpuReader } from './ingest-cpu.js';
import { type LoadOutcome, measureLoad } from './scenario-measure.js';
import { GT06_LOAD, gt06Load, registerFleet, TELTONIKA_LOAD, teltonikaLoad, trackerFleet } from './tracker-load.js';

const DEVICES = 200;
const ADMIN_TOKEN = 'bench-admin-token-0123456789';
const DEVICE_TOKEN_PREFIX = 'bench-device-token-';
const DAY_MS = 86_400_000;
const options = benchOptions(process.env);

interface RunningIngest {
  child: ChildProcess;
  url: string;
  teltonikaPort: number;
  gt06Port: number;
}

/** Starts the built ingest service on `databaseUrl`; resolves once it serves, with its ports. */
async function startIngest(databaseUrl: string): Promise<RunningIngest> {
  // The profile is written when the process exits on the SIGTERM at the end of the run.
  const profile = options.cpuProfileDir ? ['--cpu-prof', `--cpu-prof-dir=${options.cpuProfileDir}`] : [];
  const child = spawn(
    process.execPath,
    [...options.ingestNodeFlags, ...profile, new URL('../main.js', import.meta.url).pathname],
    {
      // info logs (sideBySideServiceEnv's): the start-up lines carry the gateway ports.
      env: sideBySideServiceEnv({
        DATABASE_URL: databaseUrl,
        ADMIN_TOKEN,
        INGEST_MAX_PENDING_RECORDS: '1000000',
        // The bench measures capacity: a request shed with 503 would be records lost, not a cost.
        OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0',
        ...(process.env.INGEST_BATCH_MAX_WAIT_MS
          ? { INGEST_BATCH_MAX_WAIT_MS: process.env.INGEST_BATCH_MAX_WAIT_MS }
          : {}),
      }),
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const running = { child, url: '', teltonikaPort: 0, gt06Port: 0 };
  for await (const line of createInterface({ input: child.stdout! })) {
    const entry = JSON.parse(line) as { msg?: string; url?: string; port?: number };
    if (entry.msg === 'Teltonika gateway listening (TCP)' && entry.port) running.teltonikaPort = entry.port;
    if (entry.msg === 'GT06 gateway listening (TCP)' && entry.port) running.gt06Port = entry.port;
    if (entry.msg === 'ingest service running' && entry.url) {
      running.url = entry.url;
      break;
    }
  }
  if (!running.url) throw new Error('the ingest service exited before it served');
  // Keep draining the service's log so a full pipe never stalls it.
  child.stdout?.resume();
  return running;
}

/** The HTTP fleet: DEVICES taxis of the bench operator (pack df-taxi), each device with its own token. */
async function registerHttpFleet(db: pg.Client): Promise<void> {
  await db.query(`INSERT INTO operators (id, name, pack) VALUES ('bench', 'Bench', 'df-taxi')`);
  const ids = Array.from({ length: DEVICES }, (_, d) => d);
  await db.query(
    `INSERT INTO vehicles (id, plate, pack, service_type, capacity, operator_id)
     SELECT 'v' || d, 'BEN' || lpad(d::text, 4, '0'), 'df-taxi', 'taxi', 4, 'bench' FROM unnest($1::int[]) d`,
    [ids],
  );
  await db.query(
    `INSERT INTO devices (id, vehicle_id, identifier, token_hash)
     SELECT 'd' || d, 'v' || d, 'BENCH-' || d, h FROM unnest($1::int[], $2::text[]) AS x(d, h)`,
    [ids, ids.map((d) => hashToken(`${DEVICE_TOKEN_PREFIX}${d}`))],
  );
}

/**
 * The rules judge a sample only for a registered vehicle with a pack: checks that every bench
 * device is one, and says what the rules run for.
 */
async function rulesCoverage(db: pg.Client): Promise<string> {
  const { rows } = await db.query<{ pack: string | null; n: number }>(
    `SELECT v.pack, count(*)::int AS n FROM devices d LEFT JOIN vehicles v ON v.id = d.vehicle_id
     GROUP BY v.pack ORDER BY v.pack`,
  );
  if (rows.some((r) => !r.pack)) throw new Error('a bench device has no vehicle with a pack: its rules would not run');
  return rows.map((r) => `${r.n} vehicles of ${r.pack}`).join(', ');
}

/** Rows stored with timestamps in the day starting at `dayStartMs`. */
async function storedInDay(db: pg.Client, dayStartMs: number): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM telemetry WHERE ts >= $1 AND ts < $2',
    [new Date(dayStartMs), new Date(dayStartMs + DAY_MS)],
  );
  return rows[0]?.n ?? 0;
}

/**
 * One HTTP scenario: the load generator (http-load.js) as a child process, started once its
 * requests are made (`begin` reads the ingest's CPU first).
 */
function httpLoad(args: HttpLoadArgsInput): (begin: () => Promise<void>) => Promise<LoadOutcome> {
  return async (begin) => {
    const child = spawn(process.execPath, [new URL('./http-load.js', import.meta.url).pathname, JSON.stringify(args)], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    const exited = once(child, 'exit');
    for await (const line of createInterface({ input: child.stdout! })) {
      const message = httpLoadMessageSchema.parse(JSON.parse(line));
      if (message.type === 'ready') {
        await begin();
        child.stdin?.end('go\n');
        continue;
      }
      const [code] = await exited;
      if (code !== 0) throw new Error(`the load generator exited with ${code}`);
      if (message.notOk + message.errors + message.timeouts > 0)
        console.warn(
          `  ${message.notOk} answers other than 200, ${message.errors} errors, ${message.timeouts} timeouts`,
        );
      return {
        sent: message.requestsSent * args.batchSize,
        seconds: message.seconds,
        latencyMs: message.latencyMs,
      };
    }
    const [code] = await exited;
    throw new Error(`the load generator exited with ${code} before its report`);
  };
}

/** The ceiling: `records` rows of the same kind straight into the table by COPY on one connection. */
async function bareCopy(url: string, records: number, dayStartMs: number): Promise<ScenarioRow['measurement']> {
  const rows = makeSamples(records, DEVICES, dayStartMs);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    // The text made before the clock starts, in chunks of a thousand lines: what is timed is the
    // database taking the rows, as cheaply as a client can hand them over.
    const receivedAt = new Date().toISOString();
    const chunks: string[] = [];
    for (let i = 0; i < rows.length; i += 1000)
      chunks.push(
        rows
          .slice(i, i + 1000)
          .map((r) => copyLine(r, receivedAt))
          .join(''),
      );
    const t = performance.now();
    await pipeline(Readable.from(chunks), client.query(copyFrom(`COPY telemetry (${COPY_COLUMNS}) FROM STDIN`)));
    return { sent: records, seconds: (performance.now() - t) / 1000 };
  } finally {
    await client.end();
  }
}

/**
 * The HTTP floor's row: a bare Fastify (http-floor.js) in a process of its own takes a warm-up and
 * then the scenario's requests (`loads(url)`: warm-up first, measured last), timed like the ingest.
 */
async function httpFloorRow(
  loads: (url: string) => { warmUp: HttpLoadArgsInput[]; measured: HttpLoadArgsInput },
  scenario: string,
): Promise<ScenarioRow> {
  const child = spawn(process.execPath, [new URL('./http-floor.js', import.meta.url).pathname], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    let url = '';
    for await (const line of createInterface({ input: child.stdout! })) {
      url = z.object({ url: z.url() }).parse(JSON.parse(line)).url;
      break;
    }
    if (!url) throw new Error('the HTTP floor exited before it listened');
    const cpu = await ingestCpuReader(url, ADMIN_TOKEN, child.pid as number);
    const { warmUp, measured } = loads(url);
    for (const args of warmUp) await measureLoad(cpu, httpLoad(args));
    const measurement = await measureLoad(cpu, httpLoad(measured));
    console.log(
      `${scenario}: ${measurement.sent} requests answered in ${measurement.seconds.toFixed(2)} s; CPU ${measurement.totalCpuS.toFixed(2)} s`,
    );
    // Nothing is stored: not a share of COPY, nothing to lose.
    return { scenario, stored: measurement.sent, measurement, reference: true };
  } finally {
    child.kill('SIGTERM');
    await once(child, 'exit');
  }
}

/** One record per request: the ingest's CPU per message against the bare HTTP floor of the same run. */
function describeOverFloor(single: ScenarioRow, floor: ScenarioRow): string {
  const perRecordUs = (row: ScenarioRow) => ((row.measurement.totalCpuS ?? 0) / Math.max(1, row.stored)) * 1e6;
  const ingestUs = perRecordUs(single);
  const floorUs = perRecordUs(floor);
  return (
    `one record per request: ${ingestUs.toFixed(0)} µs of ingest CPU per message, ${floorUs.toFixed(0)} µs of it the HTTP floor ` +
    `(a bare Fastify answering the same requests, same run): the ingest's own work ${(ingestUs - floorUs).toFixed(0)} µs, ` +
    `${(ingestUs / Math.max(1, floorUs)).toFixed(1)}× the floor`
  );
}

/** The kernel's share of the ingest's CPU and the database batches, between two readings. */
function describeCounters(before: IngestCounters, after: IngestCounters, totalCpuS: number): string {
  const batches = after.batches - before.batches;
  const records = after.batchedRecords - before.batchedRecords;
  const systemS = after.systemCpuS - before.systemCpuS;
  const perBatch = batches > 0 ? (records / batches).toFixed(1) : '–';
  const share = totalCpuS > 0 ? `${((100 * systemS) / totalCpuS).toFixed(0)} %` : '–';
  return `${batches} database batches, ${perBatch} records each; system (kernel) CPU ${systemS.toFixed(2)} s, ${share} of the ingest's`;
}

const describeLoad = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' / ');

async function main() {
  console.log(
    `machine: ${availableParallelism()} cores, load average (1 / 5 / 15 min) ${describeLoad()}; node ${process.version}`,
  );
  const scratch = await createScratchDatabase('vigia_bench');
  const ingest = await startIngest(scratch.url);
  const db = new pg.Client({ connectionString: scratch.url });
  await db.connect();
  const rows: ScenarioRow[] = [];
  let copyRate: number | undefined;
  let floor: ScenarioRow | undefined;
  try {
    const { scenarios } = options;
    const teltonika = trackerFleet('teltonika', options.teltonikaDevices);
    const gt06 = trackerFleet('gt06', options.gt06Devices);
    await registerHttpFleet(db);
    if (scenarios.has('teltonika')) await registerFleet(db, teltonika);
    if (scenarios.has('gt06')) await registerFleet(db, gt06);
    console.log(`rules on for ${await rulesCoverage(db)}`);
    const cpu: CpuReader = await ingestCpuReader(ingest.url, ADMIN_TOKEN, ingest.child.pid as number);
    console.log(
      `ingest CPU from ${cpu.source === 'metrics' ? 'its /metrics (process_cpu_user/system_seconds_total)' : `/proc/${ingest.child.pid}/stat (no CPU counters in /metrics yet)`}`,
    );

    // Each scenario writes a day of its own, a month back: its rows are counted by their day.
    const firstDayMs = Math.floor((Date.now() - 30 * DAY_MS) / DAY_MS) * DAY_MS;
    let day = 0;
    const run = async (scenario: string, load: (begin: () => Promise<void>) => Promise<LoadOutcome>, dayMs: number) => {
      const before = await cpu.counters();
      const measurement = await measureLoad(cpu, load);
      const after = await cpu.counters();
      const row = { scenario, stored: await storedInDay(db, dayMs), measurement };
      rows.push(row);
      console.log(
        `${scenario}: ${row.stored} of ${measurement.sent} records stored in ${measurement.seconds.toFixed(2)} s, ${Math.round(recordsPerSecond(row))} records/s; ingest CPU ${measurement.totalCpuS.toFixed(2)} s (${measurement.tailS.toFixed(1)} s of rule backlog after the last answer)`,
      );
      if (before && after) console.log(`  ${describeCounters(before, after, measurement.totalCpuS)}`);
    };
    const http = (batchSize: number, records: number, dayMs: number, url = ingest.url): HttpLoadArgsInput => ({
      url,
      records,
      batchSize,
      devices: DEVICES,
      dayStartMs: dayMs,
      connections: options.connections,
      auth:
        batchSize === 1
          ? { kind: 'device', tokenPrefix: DEVICE_TOKEN_PREFIX }
          : { kind: 'gateway', token: ADMIN_TOKEN },
    });

    // Not measured: every HTTP device's token and vehicle in the ingest's caches, the rules'
    // registry reloaded with the bench's vehicles and each vehicle's state begun, the hot paths
    // compiled. A fleet in service runs in that state; the first seconds after a start are not
    // what the bench is after. Days before the first scenario's, so no row collides.
    const warmUp = [
      http(1, DEVICES * 10, firstDayMs - DAY_MS),
      http(options.batchSize, 20 * options.batchSize, firstDayMs - 2 * DAY_MS),
    ];
    for (const args of warmUp) await measureLoad(cpu, httpLoad(args));
    console.log(`warm-up: ${warmUp.reduce((n, a) => n + a.records, 0)} records over HTTP, not measured`);

    if (scenarios.has('http1')) {
      const dayMs = firstDayMs + ++day * DAY_MS;
      await run(
        `HTTP, 1 record/request, ${options.connections} connections`,
        httpLoad(http(1, options.singleRecords, dayMs)),
        dayMs,
      );
      floor = await httpFloorRow(
        (url) => ({
          warmUp: [http(1, DEVICES * 10, firstDayMs - DAY_MS, url)],
          measured: http(1, options.singleRecords, dayMs, url),
        }),
        `bare Fastify, the same requests (the HTTP floor)`,
      );
      rows.push(floor);
    }
    if (scenarios.has('http1000')) {
      const dayMs = firstDayMs + ++day * DAY_MS;
      await run(
        `HTTP, ${options.batchSize} records/request, ${options.connections} connections`,
        httpLoad(http(options.batchSize, options.batchRecords, dayMs)),
        dayMs,
      );
    }
    {
      const dayMs = firstDayMs + ++day * DAY_MS;
      const measurement = await bareCopy(scratch.url, options.batchRecords, dayMs);
      const row = { scenario: 'bare COPY, 1 connection', stored: await storedInDay(db, dayMs), measurement };
      rows.push(row);
      copyRate = recordsPerSecond(row);
      console.log(
        `bare COPY: ${row.stored} records in ${measurement.seconds.toFixed(2)} s, ${Math.round(copyRate)} records/s`,
      );
    }
    if (scenarios.has('teltonika')) {
      const dayMs = firstDayMs + ++day * DAY_MS;
      const { packets, perPacket } = TELTONIKA_LOAD;
      await run(
        `Teltonika TCP, ${teltonika.devices} devices × ${packets} packets of ${perPacket}`,
        teltonikaLoad(ingest.teltonikaPort, teltonika, dayMs),
        dayMs,
      );
    }
    if (scenarios.has('gt06')) {
      const dayMs = firstDayMs + ++day * DAY_MS;
      const { windows, perWindow } = GT06_LOAD;
      await run(
        `GT06 TCP, ${gt06.devices} devices × ${windows} windows of ${perWindow}`,
        gt06Load(ingest.gt06Port, gt06, dayMs),
        dayMs,
      );
    }
    const { rows: violations } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM violations');
    console.log(`\nviolations stored by the rules during the run: ${violations[0]?.n ?? 0}`);
    console.log(`ingest CPU source: ${cpu.source}; load average at the end ${describeLoad()}\n`);
    console.log(formatTable(rows, copyRate));
    const single = rows.find((r) => r.scenario.startsWith('HTTP, 1 record/request'));
    if (single && floor) console.log(`\n${describeOverFloor(single, floor)}`);
    console.log(
      '\nµs/record: ingest CPU from the start of the load until the process is quiet again (rules included), per stored record;' +
        '\nbusy: ingest CPU over wall time of the load window; p50/p99: per request (HTTP), per packet or window round trip (TCP).',
    );
  } finally {
    await db.end();
    ingest.child.kill('SIGTERM');
    await once(ingest.child, 'exit');
    await scratch.drop();
  }
}

await main();
