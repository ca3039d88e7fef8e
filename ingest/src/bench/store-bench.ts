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
 * - With BENCH_STORE_VARIANT_SQL, a second database with that SQL applied after the migrations
 *   takes the same batches in the same rotation; its figures are printed beside the first's and
 *   what it stored is compared with what the first stored (it must be the same).
 *
 * A script that prints figures, not a test. Knobs: store-bench-options.ts.
 */
import { readFile } from 'node:fs/promises';
import { availableParallelism, loadavg } from 'node:os';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createLogger, processCpuSeconds, type Telemetry } from '@vigia/core';
import { migrate, openPostgres, type Queryable, queryableOf } from '@vigia/db';
import { createScratchDatabase } from '@vigia/db/testing';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { storeTelemetry } from '../telemetry-store.js';
import { type BenchSample, COPY_COLUMNS, copyLine, makeSamples } from './bench-samples.js';
import { AUTO_EXPLAIN_OFF, AUTO_EXPLAIN_ON, collectPlans, formatBreakdown } from './plan-breakdown.js';
import { storeBenchOptions } from './store-bench-options.js';
import { differingTables, storedDigest } from './store-digest.js';

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
async function registerFleet(url: string, devices: number, variantSql?: string): Promise<void> {
  const db = openPostgres(url, 1);
  try {
    await migrate(db, createLogger('store-bench', 'silent'));
    if (variantSql !== undefined) await db.exec(variantSql);
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

interface Connection {
  client: pg.Client;
  /** Its backend's process id, for its CPU time. */
  pid: number;
  /** The same connection as the Queryable storeTelemetry takes. */
  db: Queryable;
}

/** A connection of its own, with its backend's pid. */
async function connect(url: string): Promise<Connection> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  return { client, pid: rows[0]?.pid ?? 0, db: queryableOf(client) };
}

/** One kind's clock and its backend's CPU, batch by batch. */
class Tally {
  readonly ms: number[] = [];
  cpuS = 0;
  cpuReadable = true;

  constructor(private readonly pid: number) {}

  async time(run: () => Promise<void>): Promise<void> {
    const cpuBefore = processCpuSeconds(this.pid);
    const t = performance.now();
    await run();
    this.ms.push(performance.now() - t);
    const cpuAfter = processCpuSeconds(this.pid);
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

/** One kind of batch the bench times: telemetry_store() on a database, or the bare COPY. */
interface Kind {
  name: string;
  tally: Tally;
  run(k: number): Promise<void>;
}

/** A database telemetry_store() writes to, its connection, and the outcome codes of every batch. */
interface StoreSide {
  name: string;
  conn: Connection;
  outcomes: string[];
  rejected: number;
}

async function run(baseUrl: string, variant: { url: string; sql: string } | undefined): Promise<void> {
  const { batches, devices, batchSize, warmUpBatches } = options;
  await registerFleet(baseUrl, devices);
  if (variant) await registerFleet(variant.url, devices, variant.sql);
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

  const connections: Connection[] = [];
  try {
    const open = async (url: string) => {
      const conn = await connect(url);
      connections.push(conn);
      return conn;
    };
    const sides: StoreSide[] = [{ name: 'telemetry_store()', conn: await open(baseUrl), outcomes: [], rejected: 0 }];
    if (variant) sides.push({ name: 'variant', conn: await open(variant.url), outcomes: [], rejected: 0 });
    const copy = await open(baseUrl);
    const storeBatch = async (side: StoreSide, k: number) => {
      const { outcomes, advanced } = await storeTelemetry(
        side.conn.db,
        storeRecords.slice(k * batchSize, (k + 1) * batchSize),
      );
      side.rejected += outcomes.filter((o) => o !== 'accepted').length;
      side.outcomes.push(
        `${outcomes.join(',')}|${advanced.map((r) => `${r.deviceId}@${r.ts.toISOString()}`).join(',')}`,
      );
    };
    const kinds: Kind[] = [
      ...sides.map((side) => ({
        name: side.name,
        tally: new Tally(side.conn.pid),
        run: (k: number) => storeBatch(side, k),
      })),
      {
        name: 'bare COPY',
        tally: new Tally(copy.pid),
        run: (k: number) =>
          pipeline(
            Readable.from([copyChunks[k] ?? '']),
            copy.client.query(copyFrom(`COPY telemetry (${COPY_COLUMNS}) FROM STDIN`)),
          ),
      },
    ];
    for (let k = 0; k < warmUpBatches; k++) for (const kind of kinds) await kind.run(k);
    for (let k = warmUpBatches; k < warmUpBatches + batches; k++) {
      // Which kind goes first rotates too: none always follows another's writes.
      for (let j = 0; j < kinds.length; j++) {
        const kind = kinds[(k + j) % kinds.length]!;
        await kind.tally.time(() => kind.run(k));
      }
    }
    const perVehicle = Number.isInteger(batchSize / devices) ? batchSize / devices : (batchSize / devices).toFixed(1);
    console.log(
      `${batches} batches of ${batchSize} records (${devices} vehicles, ${perVehicle} samples each per batch), alternated with as many COPYs:`,
    );
    const summaries = kinds.map((kind) => summarise(kind.tally, batchSize));
    kinds.forEach((kind, i) => {
      console.log(summaryLine(kind.name, summaries[i]!));
    });
    const copySummary = summaries[summaries.length - 1]!;
    sides.forEach((side, i) => {
      const s = summaries[i]!;
      const cpuRatio =
        s.cpuMs !== undefined && copySummary.cpuMs
          ? `; backend CPU ${(s.cpuMs / copySummary.cpuMs).toFixed(2)}× COPY's`
          : '';
      console.log(
        `${side.name} at ${((100 * s.recordsPerS) / copySummary.recordsPerS).toFixed(0)} % of COPY's records/s${cpuRatio}`,
      );
    });
    const [base, changed] = [summaries[0]!, summaries[1]];
    if (variant && changed?.cpuMs !== undefined && base.cpuMs)
      console.log(
        `variant against telemetry_store(): backend CPU ×${(changed.cpuMs / base.cpuMs).toFixed(3)}, median ×${(changed.medianMs / base.medianMs).toFixed(3)}`,
      );
    if (kinds.some((kind) => !kind.tally.cpuReadable))
      console.log(
        `/proc/<pid>/stat of the backends (${connections.map((c) => c.pid).join(', ')}) unreadable: wall time only`,
      );

    // The breakdown: one more batch of the same kind, every statement explained.
    for (const side of sides) {
      const client = side.conn.client;
      for (const sql of AUTO_EXPLAIN_ON) await client.query(sql);
      const plans = collectPlans(client);
      await storeBatch(side, warmUpBatches + batches);
      const explained = plans();
      for (const sql of AUTO_EXPLAIN_OFF) await client.query(sql);
      console.log(
        `\n${side.name}: one batch under auto_explain, ms, statements in the order they finished. Its timing inflates every ` +
          `node (the row-by-row ones most), and a function's nested statements are inside the part that called it, with ` +
          `the cost of explaining them:`,
      );
      console.log(formatBreakdown(explained));
    }

    // Nothing lost: every record accepted, every row in its day.
    for (const side of sides) {
      const counted = await side.conn.client.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM telemetry WHERE ts >= $1 AND ts < $2',
        [new Date(STORE_DAY_MS), new Date(STORE_DAY_MS + DAY_MS)],
      );
      const n = counted.rows[0]?.n;
      console.log(`\n${side.name}: ${n} of ${total} records stored (${side.rejected} not accepted)`);
      if (side.rejected > 0 || n !== total) throw new Error(`${side.name}: records went missing`);
    }
    const copied = await copy.client.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM telemetry WHERE ts >= $1 AND ts < $2',
      [new Date(COPY_DAY_MS), new Date(COPY_DAY_MS + DAY_MS)],
    );
    // The COPY has no breakdown batch.
    console.log(`bare COPY: ${copied.rows[0]?.n} of ${total - batchSize} rows stored`);
    if (copied.rows[0]?.n !== total - batchSize) throw new Error('COPY rows went missing');

    const [baseSide, variantSide] = sides;
    if (baseSide && variantSide) {
      // The base database also holds the COPY's day: compare the store's day alone there.
      await copy.client.query('DELETE FROM telemetry WHERE ts >= $1', [new Date(COPY_DAY_MS)]);
      const sameOutcomes = baseSide.outcomes.every((o, i) => o === variantSide.outcomes[i]);
      const differing = differingTables(
        await storedDigest(baseSide.conn.client),
        await storedDigest(variantSide.conn.client),
      );
      console.log(
        `variant's results: outcome codes and live records ${sameOutcomes ? 'identical' : 'DIFFERENT'}; ` +
          (differing.length === 0
            ? 'telemetry, vehicle_live and the aggregates identical'
            : `DIFFERENT in ${differing.join(', ')}`),
      );
      if (!sameOutcomes || differing.length > 0) throw new Error('the variant changed what is stored');
    }
  } finally {
    for (const conn of connections) await conn.client.end();
  }
}

async function main() {
  const started = new Date();
  console.log(
    `${started.toISOString()}; machine: ${availableParallelism()} cores, load average (1 / 5 / 15 min) ${describeLoad()}; node ${process.version}`,
  );
  const variantSql = options.variantSqlPath ? await readFile(options.variantSqlPath, 'utf8') : undefined;
  const scratch = [await createScratchDatabase('vigia_store_bench')];
  try {
    if (variantSql !== undefined) scratch.push(await createScratchDatabase('vigia_store_bench'));
    const variantUrl = scratch[1]?.url;
    await run(
      scratch[0]!.url,
      variantSql !== undefined && variantUrl ? { url: variantUrl, sql: variantSql } : undefined,
    );
  } finally {
    for (const db of scratch) await db.drop();
  }
  console.log(
    `done in ${((Date.now() - started.getTime()) / 1000).toFixed(1)} s; load average at the end ${describeLoad()}`,
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
