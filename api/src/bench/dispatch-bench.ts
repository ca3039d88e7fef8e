/**
 * `npm run bench:dispatch`: best arrival with 20 000 live taxis (issue 10: candidate search and
 * ranking p99 < 20 ms). One process, as an API process runs it:
 *
 * 1. A scratch PostgreSQL database (TEST_PG_URL, default the machine's) with BENCH_DISPATCH_TAXIS
 *    taxis (default 20 000, 70 % Brasília, 30 % Belém, in cooperatives of 100) and their
 *    vehicle_live rows; the live fleet index is loaded from it and then fed by the bus.
 * 2. A travel-time history from real taxi traces: the Porto taxi trips of /work/shared/data
 *    (ECML/PKDD 2015, a position every 15 s) moved onto Brasília and Belém (distances kept, the
 *    longitude scaled by latitude), BENCH_DISPATCH_TRIP_COPIES copies each at random places,
 *    shifted by whole weeks into the last 7 days, stored as hired telemetry; the model is built
 *    from it by its own SQL. Without the traces the history part is skipped (straight-line
 *    estimates) and the reason printed.
 * 3. A stream of fleet updates on the bus while it runs: every taxi reports every
 *    BENCH_DISPATCH_REPORT_S seconds (default 5: 4 000 updates/s), moving, some changing state.
 * 4. BENCH_DISPATCH_PICKUPS pickups (default 2 000, at BENCH_DISPATCH_RATE a second, default 50)
 *    near the taxis, 70 % restricted to one cooperative's taxis (a dispatcher's booking), 30 %
 *    open: the nearest-free search alone, and the whole ranking (search, one estimate call for
 *    DISPATCH_CANDIDATES taxis, ordering), timed, with the process CPU each took.
 *
 * Prints p50/p99 (ms), CPU per query and the index rebuild cost. A script that prints figures,
 * not a test.
 */
import { existsSync, readFileSync } from 'node:fs';
import { type FleetUpdate, InProcessBus, type MeterState, seededRandom } from '@vigia/core';
import { migrate, openPostgres } from '@vigia/db';
import { createScratchDatabase } from '@vigia/db/testing';
import { haversineM } from '@vigia/rules';
import { parse } from 'csv-parse/sync';
import pino from 'pino';
import { z } from 'zod';
import { CandidateRanker } from '../dispatch/candidate-ranking.js';
import { HistoryTravelTimes } from '../dispatch/history-travel-times.js';
import { LiveFleetIndex } from '../dispatch/live-fleet-index.js';
import { StraightLineTravelTimes } from '../dispatch/straight-line-travel-times.js';

// The knobs, checked: a typo fails here instead of running with NaN.
const {
  BENCH_DISPATCH_TAXIS: TAXIS,
  BENCH_DISPATCH_PICKUPS: PICKUPS,
  BENCH_DISPATCH_RATE: RATE,
  BENCH_DISPATCH_REPORT_S: REPORT_S,
  BENCH_DISPATCH_TRIP_COPIES: TRIP_COPIES,
  BENCH_DISPATCH_TRACES: TRACES,
} = z
  .object({
    BENCH_DISPATCH_TAXIS: z.coerce.number().int().positive().default(20_000),
    BENCH_DISPATCH_PICKUPS: z.coerce.number().int().positive().default(2_000),
    BENCH_DISPATCH_RATE: z.coerce.number().positive().default(50),
    BENCH_DISPATCH_REPORT_S: z.coerce.number().positive().default(5),
    BENCH_DISPATCH_TRIP_COPIES: z.coerce.number().int().positive().default(8),
    BENCH_DISPATCH_TRACES: z.string().min(1).default('/work/shared/data/porto_taxi/train.1k.csv'),
  })
  .parse(process.env);
/** The defaults of core/src/config.ts. */
const CANDIDATES = 20;
const SEARCH_RADIUS_M = 10_000;
const OFFLINE_AFTER_S = 120;
const FALLBACK_SPEED_KMH = 25;
const DETOUR = 1.35;

const CITIES = [
  { name: 'Brasília', pack: 'df-taxi', lat: -15.7942, lon: -47.8822, spreadDeg: 0.09, share: 0.7 },
  { name: 'Belém', pack: 'belem-taxi', lat: -1.4558, lon: -48.4902, spreadDeg: 0.06, share: 0.3 },
] as const;
const PORTO = { lat: 41.15, lon: -8.61 };
const DEG = Math.PI / 180;

/** Deterministic, so two runs measure the same fleet. */
const random = seededRandom(10);
/** Roughly normal around 0 (sum of three uniforms), in [-1.5, 1.5]. */
const spread = () => random() + random() + random() - 1.5;

function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
}
const ms = (v: number) => v.toFixed(2);
function summary(label: string, values: number[]): string {
  const s = [...values].sort((a, b) => a - b);
  return `${label.padEnd(34)} p50 ${ms(quantile(s, 0.5)).padStart(7)}  p99 ${ms(quantile(s, 0.99)).padStart(7)}  max ${ms(s[s.length - 1] ?? Number.NaN).padStart(7)} ms`;
}

interface Taxi {
  id: string;
  plate: string;
  operatorId: string;
  pack: 'df-taxi' | 'belem-taxi';
  city: (typeof CITIES)[number];
  lat: number;
  lon: number;
  meterState: MeterState;
  /** Epoch ms of the last report; an offline taxi stopped reporting long ago. */
  ts: number;
  online: boolean;
}

/** A realistic shift: 85 % online; of those about half free, 40 % hired, the rest stopped or off. */
function makeFleet(now: number): Taxi[] {
  const taxis: Taxi[] = [];
  for (let i = 0; i < TAXIS; i++) {
    const city = i < TAXIS * CITIES[0].share ? CITIES[0] : CITIES[1];
    const online = random() < 0.85;
    const r = random();
    const meterState: MeterState = r < 0.5 ? 'free' : r < 0.9 ? 'hired' : r < 0.95 ? 'stopped' : 'off';
    taxis.push({
      id: `tx-${i}`,
      plate: `BEN${String(i).padStart(5, '0')}`,
      operatorId: `coop-${Math.floor(i / 100)}`,
      pack: city.pack,
      city,
      lat: city.lat + spread() * city.spreadDeg,
      lon: city.lon + (spread() * city.spreadDeg) / Math.cos(city.lat * DEG),
      meterState,
      ts: online ? now - random() * REPORT_S * 1000 : now - 3_600_000,
      online,
    });
  }
  return taxis;
}

const fleetUpdate = (t: Taxi): FleetUpdate => ({
  vehicleId: t.id,
  plate: t.plate,
  operatorId: t.operatorId,
  pack: t.pack,
  serviceType: 'taxi',
  ts: new Date(t.ts).toISOString(),
  lat: t.lat,
  lon: t.lon,
  speedKmh: 25,
  headingDeg: null,
  meterState: t.meterState,
  tariff: null,
  passengers: null,
  doorOpen: null,
  ignition: true,
});

async function insertFleet(db: ReturnType<typeof openPostgres>, taxis: Taxi[]): Promise<void> {
  const ops = [...new Set(taxis.map((t) => `${t.operatorId}|${t.pack}`))].map((s) => s.split('|') as [string, string]);
  await db.query(
    `INSERT INTO operators (id, name, pack, kind) SELECT id, id, pack, 'cooperative' FROM unnest($1::text[], $2::text[]) AS o(id, pack)`,
    [ops.map((o) => o[0]), ops.map((o) => o[1])],
  );
  for (let i = 0; i < taxis.length; i += 5_000) {
    const part = taxis.slice(i, i + 5_000);
    await db.query(
      `INSERT INTO vehicles (id, plate, pack, service_type, capacity, operator_id)
       SELECT id, plate, pack, 'taxi', 4, op FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS v(id, plate, pack, op)`,
      [part.map((t) => t.id), part.map((t) => t.plate), part.map((t) => t.pack), part.map((t) => t.operatorId)],
    );
    await db.query(
      `INSERT INTO vehicle_live (vehicle_id, device_id, ts, lat, lon, speed_kmh, meter_state)
       SELECT id, id, ts, lat, lon, 25, m FROM unnest($1::text[], $2::timestamptz[], $3::float8[], $4::float8[], $5::text[]) AS l(id, ts, lat, lon, m)`,
      [
        part.map((t) => t.id),
        part.map((t) => new Date(t.ts)),
        part.map((t) => t.lat),
        part.map((t) => t.lon),
        part.map((t) => t.meterState),
      ],
    );
  }
}

/**
 * The Porto trips as hired telemetry of the bench's taxis in Brasília and Belém; returns the rows
 * stored, or the reason there are none.
 */
async function insertHistory(
  db: ReturnType<typeof openPostgres>,
  taxis: Taxi[],
  now: number,
): Promise<{ rows: number; trips: number } | { skipped: string }> {
  if (!existsSync(TRACES)) return { skipped: `no taxi traces at ${TRACES}` };
  const records = parse(readFileSync(TRACES), { columns: true, skip_empty_lines: true }) as {
    TRIP_ID: string;
    TIMESTAMP: string;
    MISSING_DATA: string;
    POLYLINE: string;
  }[];
  const trips = records
    .filter((r) => r.MISSING_DATA === 'False')
    .map((r) => ({
      id: r.TRIP_ID,
      t0: Number(r.TIMESTAMP) * 1000,
      points: JSON.parse(r.POLYLINE) as [number, number][],
    }))
    .filter((t) => t.points.length >= 4);
  if (trips.length === 0) return { skipped: `no usable trips in ${TRACES}` };
  const week = 7 * 86_400_000;
  const cols = {
    ts: [] as Date[],
    vehicle: [] as string[],
    lat: [] as number[],
    lon: [] as number[],
    speed: [] as (number | null)[],
    trip: [] as string[],
    dist: [] as number[],
  };
  let rows = 0;
  let stored = 0;
  const flush = async () => {
    if (cols.ts.length === 0) return;
    const r = await db.query(
      `INSERT INTO telemetry (ts, device_id, vehicle_id, received_at, lat, lon, speed_kmh, meter_state, meter_trip_id, dist_m, dt_s)
       SELECT ts, v, v, ts, lat, lon, sp, 'hired', trip, d, 15
         FROM unnest($1::timestamptz[], $2::text[], $3::float8[], $4::float8[], $5::real[], $6::text[], $7::real[])
              AS t(ts, v, lat, lon, sp, trip, d)
       ON CONFLICT DO NOTHING`,
      [cols.ts, cols.vehicle, cols.lat, cols.lon, cols.speed, cols.trip, cols.dist],
    );
    rows += r.rowCount;
    for (const c of Object.values(cols)) c.length = 0;
  };
  let k = 0;
  for (let copy = 0; copy < TRIP_COPIES; copy++) {
    for (const trip of trips) {
      const taxi = taxis[(k++ * 7919) % taxis.length] as Taxi;
      const city = taxi.city;
      const oLat = city.lat + spread() * city.spreadDeg * 0.8;
      const oLon = city.lon + (spread() * city.spreadDeg * 0.8) / Math.cos(city.lat * DEG);
      const lonScale = Math.cos(PORTO.lat * DEG) / Math.cos(city.lat * DEG);
      // Whole weeks keep the trip's hour of the week; it lands in the last 7 days.
      let t0 = trip.t0 + Math.ceil((now - week - trip.t0) / week) * week;
      if (t0 + trip.points.length * 15_000 > now) t0 -= week;
      let prev: { lat: number; lon: number } | undefined;
      trip.points.forEach(([lon, lat], i) => {
        const p = { lat: oLat + (lat - PORTO.lat), lon: oLon + (lon - PORTO.lon) * lonScale };
        const d = prev ? haversineM(prev.lat, prev.lon, p.lat, p.lon) : 0;
        const kmh = (d / 15) * 3.6;
        cols.ts.push(new Date(t0 + i * 15_000));
        cols.vehicle.push(taxi.id);
        cols.lat.push(p.lat);
        cols.lon.push(p.lon);
        // A jump faster than any taxi is a GPS glitch: no speed from it.
        cols.speed.push(prev && kmh < 150 ? kmh : null);
        cols.trip.push(`${trip.id}-${copy}`);
        cols.dist.push(d);
        prev = p;
      });
      stored++;
      if (cols.ts.length >= 20_000) await flush();
    }
  }
  await flush();
  return { rows, trips: stored };
}

async function main(): Promise<void> {
  const log = pino({ level: 'warn' });
  const scratch = await createScratchDatabase('vigia_bench_dispatch');
  const db = openPostgres(scratch.url, 4);
  const bus = new InProcessBus();
  let stopStream = () => {};
  try {
    await migrate(db, log);
    const now = Date.now();
    const taxis = makeFleet(now);
    const online = taxis.filter((t) => t.online);
    console.log(
      `fleet: ${taxis.length} taxis (${online.length} online, ${online.filter((t) => t.meterState === 'free').length} of them free), ` +
        `${new Set(taxis.map((t) => t.operatorId)).size} cooperatives`,
    );
    await insertFleet(db, taxis);

    // Travel-time history from the traces.
    let t = performance.now();
    const history = await insertHistory(db, taxis, now);
    let estimator: HistoryTravelTimes | StraightLineTravelTimes;
    if ('skipped' in history) {
      console.log(`history: skipped (${history.skipped}); estimates are straight-line`);
      estimator = new StraightLineTravelTimes({ detourFactor: DETOUR, speedKmh: FALLBACK_SPEED_KMH });
    } else {
      console.log(
        `history: ${history.rows} telemetry rows of ${history.trips} hired trips stored in ${((performance.now() - t) / 1000).toFixed(1)} s`,
      );
      await db.query('ANALYZE telemetry');
      const h = new HistoryTravelTimes({
        db,
        log,
        fallbackSpeedKmh: FALLBACK_SPEED_KMH,
        defaultDetourFactor: DETOUR,
        historyDays: 14,
        refreshS: 300,
        minSamples: 10,
        minSpeedKmh: 5,
      });
      t = performance.now();
      await h.refresh();
      const built = performance.now() - t;
      const s = h.model.summary();
      console.log(
        `history model: built in ${(built / 1000).toFixed(2)} s (14-day window, read six hours at a time): ${s.cells} H3 cells, ` +
          `${s.trips} trips measured, detour factor ${s.detourFactor.toFixed(3)}`,
      );
      t = performance.now();
      await h.refresh();
      console.log(`history model: incremental refresh with nothing new ${ms(performance.now() - t)} ms`);
      estimator = h;
    }

    // The live index, loaded from vehicle_live, then fed by the bus.
    t = performance.now();
    const index = await LiveFleetIndex.start(db, bus, { offlineAfterS: OFFLINE_AFTER_S });
    console.log(`live index: ${index.stats().taxis} taxis loaded from vehicle_live in ${ms(performance.now() - t)} ms`);
    const rebuilds: number[] = [];
    const rebuildCpu: number[] = [];
    for (let i = 0; i < 110; i++) {
      const c = process.cpuUsage();
      index.rebuild();
      const d = process.cpuUsage(c);
      // The first rebuilds run cold (JIT, heap growth): a running process is past them.
      if (i < 10) continue;
      rebuilds.push(index.stats().lastRebuildMs);
      rebuildCpu.push((d.user + d.system) / 1000);
    }
    console.log(summary(`index rebuild (${index.stats().indexed} free online)`, rebuilds));
    console.log(summary('CPU per index rebuild', rebuildCpu));

    // The update stream: every taxi every REPORT_S seconds, in batches every 100 ms.
    let updates = 0;
    let cursor = 0;
    const perTick = Math.ceil(online.length / (REPORT_S * 10));
    const timer = setInterval(() => {
      const batch: FleetUpdate[] = [];
      const ts = Date.now();
      for (let i = 0; i < perTick; i++) {
        const taxi = online[cursor++ % online.length] as Taxi;
        taxi.lat += spread() * 0.0004;
        taxi.lon += spread() * 0.0004;
        taxi.ts = ts;
        const r = random();
        if (r < 0.01) taxi.meterState = taxi.meterState === 'free' ? 'hired' : 'free';
        batch.push(fleetUpdate(taxi));
      }
      updates += batch.length;
      void bus.publish({ type: 'fleet', updates: batch });
    }, 100);
    stopStream = () => clearInterval(timer);

    const byOperator = new Map<string, Set<string>>();
    for (const taxi of taxis) {
      const set = byOperator.get(taxi.operatorId) ?? new Set<string>();
      set.add(taxi.id);
      byOperator.set(taxi.operatorId, set);
    }
    const runPickups = async (label: string, index: LiveFleetIndex) => {
      const ranker = new CandidateRanker({
        search: index,
        estimator,
        candidates: CANDIDATES,
        maxDistanceM: SEARCH_RADIUS_M,
      });
      const search: number[] = [];
      const rank: number[] = [];
      const cpuSearch: number[] = [];
      const cpuRank: number[] = [];
      let found = 0;
      let empty = 0;
      const rebuildsBefore = index.stats().rebuilds;
      const cpu0 = process.cpuUsage();
      const wall0 = performance.now();
      const updates0 = updates;
      for (let i = 0; i < PICKUPS; i++) {
        await new Promise((r) => setTimeout(r, 1000 / RATE));
        const near = taxis[Math.floor(random() * taxis.length)] as Taxi;
        const pickup = { lat: near.lat + spread() * 0.01, lon: near.lon + spread() * 0.01 };
        const vehicleIds = random() < 0.7 ? byOperator.get(near.operatorId) : undefined;
        let c = process.cpuUsage();
        let s = performance.now();
        index.nearestFree(pickup, { limit: CANDIDATES, maxDistanceM: SEARCH_RADIUS_M, vehicleIds });
        search.push(performance.now() - s);
        let d = process.cpuUsage(c);
        cpuSearch.push((d.user + d.system) / 1000);
        c = process.cpuUsage();
        s = performance.now();
        const ranking = await ranker.rank({ pickup, pack: near.pack, vehicleIds });
        rank.push(performance.now() - s);
        d = process.cpuUsage(c);
        cpuRank.push((d.user + d.system) / 1000);
        if (ranking.candidates.length > 0) found++;
        else empty++;
      }
      const wallS = (performance.now() - wall0) / 1000;
      const cpu = process.cpuUsage(cpu0);
      console.log(
        `\n${label}: ${PICKUPS} pickups at ${RATE}/s with ${Math.round((updates - updates0) / wallS)} fleet updates/s`,
      );
      console.log(summary('nearest-free search', search));
      console.log(summary(`ranking (search + ${estimator.name} ETA of ${CANDIDATES})`, rank));
      console.log(summary('CPU per search', cpuSearch));
      console.log(summary('CPU per ranking', cpuRank));
      console.log(
        `  ${found} rankings with candidates, ${empty} without; ${index.stats().rebuilds - rebuildsBefore} index rebuilds; ` +
          `process CPU ${((cpu.user + cpu.system) / 1000 / wallS / 10).toFixed(1)} % of one core (updates + queries)`,
      );
    };

    await runPickups('index rebuilt on a timer at most every 250 ms (default)', index);
    index.stop();
    // Worst case: a rebuild after every change (maxIndexAgeMs 0), some of them in a search.
    const eager = await LiveFleetIndex.start(db, bus, { offlineAfterS: OFFLINE_AFTER_S, maxIndexAgeMs: 0 });
    await new Promise((r) => setTimeout(r, REPORT_S * 1000));
    await runPickups('index rebuilt after every change (maxIndexAgeMs 0)', eager);
    eager.stop();
    stopStream();
    if ('refresh' in estimator) await estimator.stop();
  } finally {
    stopStream();
    await bus.close();
    await db.close();
    await scratch.drop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
