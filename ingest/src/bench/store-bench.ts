/**
 * `npm run bench:store`: what PostgreSQL's one statement per batch, `telemetry_store()`
 * (db/migrations/015), costs against a bare COPY of the same kind of rows, with no HTTP, JSON or
 * rules around it: the database side of `npm run bench:ingest`'s "batches of 1 000".
 *
 * - A scratch database on the local server (TEST_PG_URL), migrated, with a registered fleet of
 *   taxis (one device per vehicle, pack df-taxi), dropped at the end even when the run fails.
 * - Batches of 1 000 records go through the real `storeTelemetry` on one connection, COPYs of
 *   1 000 rows (a day of their own, so they never conflict) on another, alternated batch by batch
 *   and in alternating order, so the machine's noise falls on both.
 * - Per kind: the median and p90 of the client-observed ms per 1 000 records, records/s over the
 *   time spent in them, and the backend's own CPU (`/proc/<pid>/stat` of `pg_backend_pid()`).
 * - Then one more batch under auto_explain: where its time goes, part by part.
 *
 * A script that prints figures, not a test. Knobs: store-bench-options.ts.
 */
import { availableParallelism, loadavg } from 'node:os';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createLogger, type Telemetry } from '@vigia/core';
import { migrate, openPostgres, type Queryable } from '@vigia/db';
import { createScratchDatabase } from '@vigia/db/testing';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { storeTelemetry } from '../telemetry-store.js';
import { processCpuSeconds } from './backend-cpu.js';
import { type BenchSample, COPY_COLUMNS, copyLine, makeSamples } from './bench-samples.js';
import { AUTO_EXPLAIN_OFF, AUTO_EXPLAIN_ON, collectPlans, formatBreakdown } from './plan-breakdown.js';
import { storeBenchOptions } from './store-bench-options.js';

const options = storeBenchOptions(process.env);
/** The store's records and the COPY's rows lie in two different days: never a conflict between them. */
const STORE_DAY_MS = Date.UTC(2026, 0, 5);
const COPY_DAY_MS = Date.UTC(2026, 0, 6);
const DAY_MS = 86_400_000;

const describeLoad = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' / ');

/** The fleet: a taxi `v<n>` per device `d<n>` (the registry ids bench-samples' COPY lines use). */
async function registerFleet(url: string, devices: number): Promise<void> {
  const db = openPostgres(url, 1);
  try {
    await migrate(db, createLogger('store-bench', 'silent'));
    const ids = Array.from({ length: devices }, (_, d) => d);
    await db.query(
      `INSERT INTO vehicles (id, plate, pack, service_type, capacity)
       SELECT 'v' || d, 'BEN' || lpad(d::text, 4, '0'), 'df-taxi', 'taxi', 4 FROM unnest($1::int[]) d`,
      [ids],
    );
    await db.query(
      `INSERT INTO devices (id, vehicle_id, identifier, token_hash)
       SELECT 'd' || d, 'v' || d, 'BENCH-' || d, 'h' || d FROM unnest($1::int[]) d`,
      [ids],
    );
  } finally {
    await db.close();
  }
}

/** A bench sample as the ingest hands it to storeTelemetry: the same values as its COPY line. */
function toTelemetry(s: BenchSample, receivedAt: Date): Telemetry {
  const d = s.deviceId.slice('BENCH-'.length);
  return {
    deviceId: `d${d}`,
    vehicleId: `v${d}`,
    ts: new Date(s.ts),
    receivedAt,
    lat: s.lat,
    lon: s.lon,
    speedKmh: s.speedKmh,
    headingDeg: s.headingDeg,
    accuracyM: null,
    ignition: s.ignition,
    doorOpen: null,
    passengers: s.passengers,
    childrenUnder7: null,
    boardings: null,
    alightings: null,
    meterState: s.meter.state,
    meterTariff: s.meter.tariff,
    meterFareCents: s.meter.fareCents,
    meterTripId: s.meter.tripId,
    tachoSpeedKmh: s.tacho.speedKmh,
    tachoDriverId: s.tacho.driverId,
  };
}

/** A connection of its own, with its backend's pid, as the Queryable storeTelemetry takes. */
async function connect(url: string): Promise<{ client: pg.Client; pid: number; db: Queryable }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  const db: Queryable = {
    async query<T>(sql: string, params?: readonly unknown[]) {
      const res = await client.query(sql, params as unknown[] | undefined);
      return { rows: res.rows as T[], rowCount: res.rowCount ?? 0 };
    },
    async exec(sql: string) {
      await client.query(sql);
    },
  };
  return { client, pid: rows[0]?.pid ?? 0, db };
}

/** One kind's clock and its backend's CPU, batch by batch. */
class Tally {
  readonly ms: number[] = [];
  cpuS = 0;
  cpuReadable = true;

  constructor(private readonly pid: number) {}

  async time(run: () => Promise<void>): Promise<void> {
    const cpuBefore = await processCpuSeconds(this.pid);
    const t = performance.now();
    await run();
    this.ms.push(performance.now() - t);
    const cpuAfter = await processCpuSeconds(this.pid);
    if (cpuBefore === undefined || cpuAfter === undefined) this.cpuReadable = false;
    else this.cpuS += cpuAfter - cpuBefore;
  }
}

/** Nearest-rank quantile. */
function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;
}

interface Summary {
  medianMs: number;
  p90Ms: number;
  recordsPerS: number;
  /** Backend CPU ms per batch of `batchSize`; undefined when /proc was unreadable. */
  cpuMs: number | undefined;
}

function summarise(tally: Tally, batchSize: number): Summary {
  const totalS = tally.ms.reduce((s, v) => s + v, 0) / 1000;
  return {
    medianMs: quantile(tally.ms, 0.5),
    p90Ms: quantile(tally.ms, 0.9),
    recordsPerS: (tally.ms.length * batchSize) / totalS,
    cpuMs: tally.cpuReadable ? (tally.cpuS * 1000) / tally.ms.length : undefined,
  };
}

function summaryLine(name: string, s: Summary): string {
  const cpu = s.cpuMs === undefined ? 'backend CPU –' : `backend CPU ${s.cpuMs.toFixed(1)} ms`;
  return `${name.padEnd(18)} median ${s.medianMs.toFixed(1).padStart(6)} ms, p90 ${s.p90Ms.toFixed(1).padStart(6)} ms per 1 000 records; ${Math.round(s.recordsPerS).toString().padStart(7)} records/s; ${cpu} per 1 000 records`;
}

async function run(url: string): Promise<void> {
  const { batches, devices, batchSize, warmUpBatches } = options;
  await registerFleet(url, devices);
  // Warm-up, measured batches, and one more for the breakdown.
  const total = (warmUpBatches + batches + 1) * batchSize;
  const receivedAt = new Date();
  const storeRecords = makeSamples(total, devices, STORE_DAY_MS).map((s) => toTelemetry(s, receivedAt));
  const copySamples = makeSamples(total, devices, COPY_DAY_MS);
  const copyChunks: string[] = [];
  const receivedAtText = receivedAt.toISOString();
  for (let i = 0; i < total; i += batchSize)
    copyChunks.push(
      copySamples
        .slice(i, i + batchSize)
        .map((s) => copyLine(s, receivedAtText))
        .join(''),
    );

  const store = await connect(url);
  const copy = await connect(url);
  try {
    const storeTally = new Tally(store.pid);
    const copyTally = new Tally(copy.pid);
    let rejected = 0;
    const storeBatch = async (k: number) => {
      const { outcomes } = await storeTelemetry(store.db, storeRecords.slice(k * batchSize, (k + 1) * batchSize));
      rejected += outcomes.filter((o) => o !== 'accepted').length;
    };
    const copyBatch = (k: number) =>
      pipeline(
        Readable.from([copyChunks[k] ?? '']),
        copy.client.query(copyFrom(`COPY telemetry (${COPY_COLUMNS}) FROM STDIN`)),
      );
    for (let k = 0; k < warmUpBatches; k++) {
      await storeBatch(k);
      await copyBatch(k);
    }
    for (let k = warmUpBatches; k < warmUpBatches + batches; k++) {
      // Which kind goes first alternates too: neither always follows the other's writes.
      if (k % 2 === 0) {
        await storeTally.time(() => storeBatch(k));
        await copyTally.time(() => copyBatch(k));
      } else {
        await copyTally.time(() => copyBatch(k));
        await storeTally.time(() => storeBatch(k));
      }
    }
    const storeSummary = summarise(storeTally, batchSize);
    const copySummary = summarise(copyTally, batchSize);
    console.log(
      `${batches} batches of ${batchSize} records (${devices} vehicles, ${batchSize / devices} samples each per batch), alternated with as many COPYs:`,
    );
    console.log(summaryLine('telemetry_store()', storeSummary));
    console.log(summaryLine('bare COPY', copySummary));
    const cpuRatio =
      storeSummary.cpuMs !== undefined && copySummary.cpuMs
        ? `; backend CPU ${(storeSummary.cpuMs / copySummary.cpuMs).toFixed(2)}× COPY's`
        : '';
    console.log(
      `telemetry_store() at ${((100 * storeSummary.recordsPerS) / copySummary.recordsPerS).toFixed(0)} % of COPY's records/s${cpuRatio}`,
    );
    if (!storeTally.cpuReadable || !copyTally.cpuReadable)
      console.log(`/proc/<pid>/stat of the backends (${store.pid}, ${copy.pid}) unreadable: wall time only`);

    // The breakdown: one more batch of the same kind, every statement explained.
    for (const sql of AUTO_EXPLAIN_ON) await store.client.query(sql);
    const plans = collectPlans(store.client);
    await storeBatch(warmUpBatches + batches);
    const explained = plans();
    for (const sql of AUTO_EXPLAIN_OFF) await store.client.query(sql);
    console.log(
      `\none batch under auto_explain (ms; its timing inflates every node, the row-by-row ones most), statements in the order they finished:`,
    );
    console.log(formatBreakdown(explained));

    // Nothing lost: every record accepted, every row in its day.
    const counted = await copy.client.query<{ store: number; copy: number }>(
      `SELECT count(*) FILTER (WHERE ts < $2)::int AS store, count(*) FILTER (WHERE ts >= $2)::int AS copy
       FROM telemetry WHERE ts >= $1 AND ts < $3`,
      [new Date(STORE_DAY_MS), new Date(COPY_DAY_MS), new Date(COPY_DAY_MS + DAY_MS)],
    );
    const row = counted.rows[0];
    // The COPY has no breakdown batch.
    const copied = total - batchSize;
    console.log(
      `\nstored: ${row?.store} of ${total} records by telemetry_store() (${rejected} not accepted), ${row?.copy} of ${copied} rows by COPY`,
    );
    if (rejected > 0 || row?.store !== total || row?.copy !== copied) throw new Error('records went missing');
  } finally {
    await store.client.end();
    await copy.client.end();
  }
}

async function main() {
  const started = new Date();
  console.log(
    `${started.toISOString()}; machine: ${availableParallelism()} cores, load average (1 / 5 / 15 min) ${describeLoad()}; node ${process.version}`,
  );
  const scratch = await createScratchDatabase('vigia_store_bench');
  try {
    await run(scratch.url);
  } finally {
    await scratch.drop();
  }
  console.log(
    `done in ${((Date.now() - started.getTime()) / 1000).toFixed(1)} s; load average at the end ${describeLoad()}`,
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
