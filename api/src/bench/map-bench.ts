/**
 * `npm run bench:map`: the dashboard's main-thread time per live update with BENCH_MAP_VEHICLES
 * vehicles moving (default 20 000; issue 12 item 5: p95 ≤ 16 ms). One process serves the real
 * system; the page runs in headless Chromium as the browser tests run it:
 *
 * 1. A scratch PostgreSQL database (TEST_PG_URL, default the machine's) with the fleet in the
 *    registry and its live state (half São Paulo charter buses, 30 % Brasília taxis, 20 % Belém
 *    taxis), and the API on it (no ingest, no demo).
 * 2. The fleet moves: every vehicle reports every BENCH_MAP_REPORT_S seconds (default 10, the soak's
 *    rate: 2 000 updates/s), staggered, published on the bus as ingest publishes, so each update
 *    takes the real `/live` path (LiveHub, its rooms or a viewport socket's delta, Socket.IO).
 * 3. The dashboard (dashboard/dist, built) signed in as the admin, 1280 × 800; once every vehicle
 *    is drawn, for each view of BENCH_MAP_VIEWS (default São Paulo at zoom 13 and 11, and the
 *    whole served territory) a Chromium trace of BENCH_MAP_SECONDS (default 30) seconds.
 *
 * Per live update (one Socket.IO `fleet` or `fleet-delta` message; the page marks each as it
 * arrives) the renderer main thread's top-level tasks from the one that received it to the one
 * that received the next: their sum (everything the page did for that update: decoding, the
 * store, the layer, MapLibre's frames) and the longest task. Prints p50/p95/max of both, the
 * updates measured, bytes per update (what the page received, and a plain `fleet` socket's in the
 * same run), this process's CPU per vehicle update pushed, and the load average.
 * A script that prints figures, not a test.
 */
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type FleetUpdate, seededRandom } from '@vigia/core';
import { createScratchDatabase } from '@vigia/db/testing';
import { chromium, type Page } from 'playwright-core';
import { io } from 'socket.io-client';
import { z } from 'zod';
import { startSystem } from '../system.js';
import { quantile, type UpdateCost, updateCosts } from './main-thread-trace.js';

// The knobs, checked: a typo fails here instead of running with NaN (the views against
// VIEW_CAMERAS when the run reaches them).
const {
  BENCH_MAP_VEHICLES: VEHICLES,
  BENCH_MAP_REPORT_S: REPORT_S,
  BENCH_MAP_SECONDS: SECONDS,
  BENCH_MAP_VIEWS: VIEWS,
  BENCH_MAP_CHROMIUM: CHROMIUM,
} = z
  .object({
    BENCH_MAP_VEHICLES: z.coerce.number().int().positive().default(20_000),
    BENCH_MAP_REPORT_S: z.coerce.number().positive().default(10),
    BENCH_MAP_SECONDS: z.coerce.number().positive().default(30),
    BENCH_MAP_VIEWS: z
      .string()
      .default('sp-13,sp-11,all')
      .transform((s) => s.split(',')),
    BENCH_MAP_CHROMIUM: z.string().min(1).default('/usr/bin/chromium'),
  })
  .parse(process.env);
/** The flags of dashboard/test/browser-support.ts: software WebGL, nothing leaving the machine. */
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--headless=new',
  '--use-angle=swiftshader',
  '--enable-unsafe-swiftshader',
  '--ignore-gpu-blocklist',
  '--disable-gpu-sandbox',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];
/**
 * Set to print, per view, the page's functions that took the most main-thread time (V8 CPU profile)
 * and those that allocated the most (V8 sampling heap profile).
 */
const PROFILE = process.env.BENCH_MAP_PROFILE === '1';
/**
 * Set to a folder to keep each view's trace (open it in Chromium's DevTools, Performance panel)
 * and a screenshot of the view as it was measured.
 */
const TRACE_DIR = process.env.BENCH_MAP_TRACE_DIR;
const TICK_MS = 100;
const MARK = 'vigia-live-update';

const CITIES = [
  {
    name: 'São Paulo',
    pack: 'sp-fretamento',
    serviceType: 'fretamento-continuo',
    lat: -23.55,
    lon: -46.63,
    spreadDeg: 0.12,
    share: 0.5,
  },
  { name: 'Brasília', pack: 'df-taxi', serviceType: 'taxi', lat: -15.79, lon: -47.88, spreadDeg: 0.08, share: 0.3 },
  { name: 'Belém', pack: 'belem-taxi', serviceType: 'taxi', lat: -1.42, lon: -48.49, spreadDeg: 0.05, share: 0.2 },
] as const;
type City = (typeof CITIES)[number];

/** What the page is shown: a city at a zoom, or `all`, the initial view (every served area). */
const VIEW_CAMERAS: Record<string, { center: [number, number]; zoom: number } | 'all'> = {
  'sp-13': { center: [-46.63, -23.55], zoom: 13 },
  'sp-11': { center: [-46.63, -23.55], zoom: 11 },
  'df-12': { center: [-47.88, -15.79], zoom: 12 },
  all: 'all',
};

interface Vehicle {
  update: FleetUpdate;
  /** Degrees per report along the heading. */
  stepDeg: number;
}

const random = seededRandom(12);
const spread = () => random() + random() + random() - 1.5;

function cityOf(pick: number): City {
  let below = 0;
  for (const city of CITIES) {
    below += city.share;
    if (pick < below) return city;
  }
  return CITIES[0];
}

function makeFleet(): Vehicle[] {
  const fleet: Vehicle[] = [];
  const now = Date.now();
  for (let i = 0; i < VEHICLES; i++) {
    const city = cityOf(random());
    const taxi = city.serviceType === 'taxi';
    const speedKmh = 10 + random() * 50;
    fleet.push({
      stepDeg: (speedKmh / 3600) * REPORT_S * (1 / 111),
      update: {
        vehicleId: `bench-${String(i).padStart(6, '0')}`,
        plate: `BM${String.fromCharCode(65 + Math.floor(i / 10_000))}${String(i % 10_000).padStart(4, '0')}`,
        operatorId: `bench-op-${city.pack}-${Math.floor(i / 200)}`,
        pack: city.pack,
        serviceType: city.serviceType,
        ts: new Date(now - random() * REPORT_S * 1000).toISOString(),
        lat: city.lat + spread() * city.spreadDeg,
        lon: city.lon + spread() * city.spreadDeg,
        speedKmh: Math.round(speedKmh),
        headingDeg: Math.floor(random() * 360),
        meterState: taxi ? ((['free', 'hired', 'off'] as const)[Math.floor(random() * 3)] ?? 'free') : null,
        tariff: taxi ? 1 : null,
        passengers: taxi ? 0 : Math.floor(random() * 40),
        doorOpen: false,
        ignition: true,
      },
    });
  }
  return fleet;
}

/** The next report of a vehicle: a step along a wandering heading; now and then a taxi's meter changes. */
function move(vehicle: Vehicle, tsMs: number): FleetUpdate {
  const u = vehicle.update;
  const heading = ((u.headingDeg ?? 0) + (random() - 0.5) * 40 + 360) % 360;
  const rad = (heading * Math.PI) / 180;
  let meterState = u.meterState;
  if (meterState !== null && random() < 0.05) meterState = meterState === 'free' ? 'hired' : 'free';
  vehicle.update = {
    ...u,
    ts: new Date(tsMs).toISOString(),
    lat: u.lat + Math.cos(rad) * vehicle.stepDeg,
    lon: u.lon + Math.sin(rad) * vehicle.stepDeg,
    headingDeg: Math.round(heading),
    speedKmh: Math.max(0, Math.round((u.speedKmh ?? 30) + (random() - 0.5) * 10)),
    meterState,
  };
  return vehicle.update;
}

const fmt = (v: number) => v.toFixed(1).padStart(6);
function line(label: string, values: readonly number[], unit: string): string {
  return `  ${label.padEnd(36)} p50 ${fmt(quantile(values, 0.5))}  p95 ${fmt(quantile(values, 0.95))}  max ${fmt(Math.max(...values))} ${unit}`;
}

const distIndex = fileURLToPath(new URL('../../../dashboard/dist/index.html', import.meta.url));
if (!existsSync(distIndex)) throw new Error('dashboard/dist is missing: run `npm run build` first');
if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is not installed (BENCH_MAP_CHROMIUM names another)`);

const scratch = await createScratchDatabase();
const sys = await startSystem(
  {
    PORT: '0',
    OSMAND_PORT: '0',
    TELTONIKA_PORT: '0',
    HOST: '127.0.0.1',
    DATABASE_URL: scratch.url,
    ADMIN_TOKEN: 'bench-map-admin-token-0123456789',
    DEMO: 'off',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0',
    // The live feed's settings (LIVE_PUSH_INTERVAL_MS, LIVE_VIEWPORT_MARGIN, LIVE_OUTSIDE_REFRESH_MS) as set.
    ...Object.fromEntries(Object.entries(process.env).filter(([key]) => key.startsWith('LIVE_'))),
  },
  { ingest: false, api: true },
);
const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
let feedTimer: NodeJS.Timeout | undefined;
try {
  const fleet = makeFleet();
  await insertFleet(fleet);
  console.log(
    `${VEHICLES} vehicles, each reporting every ${REPORT_S} s (${Math.round(VEHICLES / REPORT_S)} updates/s), ` +
      `LIVE_PUSH_INTERVAL_MS ${sys.config.LIVE_PUSH_INTERVAL_MS}, LIVE_OUTSIDE_REFRESH_MS ${sys.config.LIVE_OUTSIDE_REFRESH_MS}; ${cpus().length} cores, load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
  );

  // The feed: every tick the vehicles whose turn it is report, as one bus message.
  let cursor = 0;
  let published = 0;
  const perTick = (VEHICLES * TICK_MS) / (REPORT_S * 1000);
  let owed = 0;
  feedTimer = setInterval(() => {
    owed += perTick;
    const updates: FleetUpdate[] = [];
    const now = Date.now();
    for (; owed >= 1; owed--) {
      updates.push(move(fleet[cursor] as Vehicle, now));
      cursor = (cursor + 1) % fleet.length;
    }
    published += updates.length;
    void sys.bus.publish({ type: 'fleet', updates });
  }, TICK_MS);
  // As on a server that has run a while: every vehicle has reported once before the page opens.
  await new Promise((resolve) => setTimeout(resolve, REPORT_S * 1000));

  // A plain socket beside the page: the bytes every `fleet` push costs without a viewport.
  const plainBytes: number[] = [];
  const plain = io(`${sys.url}/live`, { auth: { token: sys.adminToken }, transports: ['websocket'] });
  plain.on('fleet', (updates: unknown) => plainBytes.push(JSON.stringify(updates).length));

  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  // Marks each live update as its WebSocket message reaches the page, and keeps its size.
  await page.addInitScript((mark: string) => {
    const sizes: number[] = [];
    Object.assign(globalThis, { __benchSizes: sizes });
    const descriptor = Object.getOwnPropertyDescriptor(WebSocket.prototype, 'onmessage');
    Object.defineProperty(WebSocket.prototype, 'onmessage', {
      configurable: true,
      get: descriptor?.get,
      set(handler: ((event: MessageEvent) => void) | null) {
        descriptor?.set?.call(
          this,
          handler &&
            function (this: WebSocket, event: MessageEvent) {
              // An event with binary attachments (a packed `fleet-delta`'s moves) is `45<n>-/live,…`
              // followed by one binary message per attachment, counted with it.
              if (typeof event.data === 'string' && /^4(2|5\d+-)\/live,\["fleet/.test(event.data)) {
                performance.mark(mark);
                sizes.push(event.data.length);
              } else if (event.data instanceof ArrayBuffer && sizes.length > 0) {
                sizes[sizes.length - 1] = (sizes[sizes.length - 1] ?? 0) + event.data.byteLength;
              }
              handler.call(this, event);
            },
        );
      },
    });
  }, MARK);
  page.on('console', (message) => {
    if (message.type() === 'error') console.log(`page error: ${message.text()}`);
  });
  page.on('pageerror', (error) => console.log(`page error: ${error.message}`));
  const loadStarted = performance.now();
  await page.goto(`${sys.url}/#token=${sys.adminToken}`);
  await page
    .waitForFunction(
      (expected) => {
        // The fleet's canvas exists once the style has loaded (`loaded()` is false while any tile
        // loads, which with 20 000 vehicles moving is most of the time).
        const page = globalThis as unknown as {
          document: { querySelector(selector: string): unknown };
          vigia?: { vehicles(): unknown[] };
        };
        return (
          page.document.querySelector('#map .vehicle-canvas') !== null &&
          (page.vigia?.vehicles().length ?? 0) >= expected
        );
      },
      VEHICLES,
      { timeout: 180_000, polling: 500 },
    )
    .catch(async (error: unknown) => {
      const state = {
        placed: await page.evaluate(
          () => (globalThis as { vigia?: { vehicles(): unknown[] } }).vigia?.vehicles().length,
        ),
        notice: await page.textContent('#notice'),
      };
      throw new Error(`the page did not place the fleet: ${JSON.stringify(state)}`, { cause: error });
    });
  console.log(
    `page signed in with ${VEHICLES} vehicles placed after ${((performance.now() - loadStarted) / 1000).toFixed(1)} s`,
  );

  for (const view of VIEWS) {
    const camera = VIEW_CAMERAS[view];
    if (camera === undefined) throw new Error(`unknown view ${view}: one of ${Object.keys(VIEW_CAMERAS).join(', ')}`);
    if (camera === 'all') await page.click('[data-area="all"]');
    else await page.evaluate((cam) => (globalThis as { vigia?: { map: MapCamera } }).vigia?.map.jumpTo(cam), camera);
    // The view settles and the page catches up with the new area.
    await new Promise((resolve) => setTimeout(resolve, 5000));
    await page.evaluate(() => {
      (globalThis as unknown as { __benchSizes: number[] }).__benchSizes.length = 0;
    });
    plainBytes.length = 0;
    // First without the trace, which costs the page something itself: Chromium's own count of the
    // main thread's CPU time (CDP Performance `ThreadTime`) over as many updates, a mean only.
    const untraced = await untracedCpuPerUpdate(page);
    const cpu = process.cpuUsage();
    const publishedBefore = published;
    const profiler = PROFILE ? await page.context().newCDPSession(page) : null;
    if (profiler) {
      await profiler.send('Profiler.enable');
      await profiler.send('Profiler.start');
      await profiler.send('HeapProfiler.enable');
      // Samples are kept until the end, so what was allocated and collected is counted too.
      await profiler.send('HeapProfiler.startSampling', {
        samplingInterval: 16_384,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: true,
      });
    }
    await browser.startTracing(page, {
      categories: [
        'devtools.timeline',
        'disabled-by-default-devtools.timeline',
        'toplevel',
        'blink.user_timing',
        'v8.execute',
        '__metadata',
      ],
    });
    await new Promise((resolve) => setTimeout(resolve, SECONDS * 1000));
    const trace = await browser.stopTracing();
    const profile = profiler ? (await profiler.send('Profiler.stop')).profile : null;
    const allocations = profiler ? (await profiler.send('HeapProfiler.stopSampling')).profile : null;
    if (TRACE_DIR) {
      await writeFile(join(TRACE_DIR, `map-bench-${view}.json`), trace);
      await page.screenshot({ path: join(TRACE_DIR, `map-bench-${view}.png`) });
    }
    const used = process.cpuUsage(cpu);
    const pushed = published - publishedBefore;
    const sizes = await page.evaluate(() => [...(globalThis as unknown as { __benchSizes: number[] }).__benchSizes]);
    const inView = await page.evaluate(() => {
      const map = (globalThis as { vigia?: { map: MapCamera } }).vigia?.map;
      const bounds = map?.getBounds();
      const vehicles =
        (globalThis as { vigia?: { vehicles(): { lat: number; lon: number }[] } }).vigia?.vehicles() ?? [];
      return bounds
        ? vehicles.filter(
            (v) =>
              v.lon >= bounds.getWest() &&
              v.lon <= bounds.getEast() &&
              v.lat >= bounds.getSouth() &&
              v.lat <= bounds.getNorth(),
          ).length
        : 0;
    });
    const costs: UpdateCost[] = updateCosts(trace, MARK);
    console.log(
      `view ${view} (${inView} vehicles in view), ${costs.length} live updates measured over ${SECONDS} s, load average ${loadavg()[0]?.toFixed(2)}:`,
    );
    if (costs.length === 0) continue;
    console.log(
      line(
        'main-thread time per update',
        costs.map((c) => c.busyMs),
        'ms',
      ),
    );
    console.log(
      line(
        'main-thread CPU per update',
        costs.map((c) => c.cpuMs),
        'ms',
      ),
    );
    console.log(
      `  main-thread CPU per update, untraced   mean ${fmt(untraced.cpuMsPerUpdate)} ms over ${untraced.updates} updates`,
    );
    console.log(
      line(
        'longest task per update',
        costs.map((c) => c.longestTaskMs),
        'ms',
      ),
    );
    console.log(
      line(
        'bytes per update (page)',
        sizes.map((s) => s / 1024),
        'KiB',
      ),
    );
    if (plainBytes.length > 0)
      console.log(
        line(
          'bytes per update (plain `fleet` socket)',
          plainBytes.map((s) => s / 1024),
          'KiB',
        ),
      );
    if (profile) printHotFunctions(profile);
    if (allocations) printAllocations(allocations.head, SECONDS);
    console.log(
      `  server and feed process: ${((used.user + used.system) / Math.max(1, pushed)).toFixed(1)} µs CPU per vehicle update published (${pushed} updates)`,
    );
  }
  plain.close();
} finally {
  if (feedTimer) clearInterval(feedTimer);
  await browser.close();
  await sys.close();
  await scratch.drop();
}

async function untracedCpuPerUpdate(page: Page): Promise<{ cpuMsPerUpdate: number; updates: number }> {
  const session = await page.context().newCDPSession(page);
  await session.send('Performance.enable', { timeDomain: 'threadTicks' });
  const threadTime = async () =>
    (await session.send('Performance.getMetrics')).metrics.find((m) => m.name === 'ThreadTime')?.value ?? Number.NaN;
  const count = () => page.evaluate(() => (globalThis as unknown as { __benchSizes: number[] }).__benchSizes.length);
  const [t0, n0] = [await threadTime(), await count()];
  await new Promise((resolve) => setTimeout(resolve, SECONDS * 1000));
  const [t1, n1] = [await threadTime(), await count()];
  await session.detach();
  const updates = n1 - n0;
  return { cpuMsPerUpdate: ((t1 - t0) * 1000) / Math.max(1, updates), updates };
}

interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
  samples?: number[];
  timeDeltas?: number[];
}

/** Self time by function over the profile, the 15 largest. */
function printHotFunctions(profile: CpuProfile): void {
  const byNode = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map<string, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  let total = 0;
  samples.forEach((id, index) => {
    const frame = byNode.get(id)?.callFrame;
    if (!frame) return;
    const dt = (deltas[index + 1] ?? 0) / 1000;
    const file = frame.url.split('/').pop() ?? '';
    const key = `${frame.functionName || '(anonymous)'} ${file}:${frame.lineNumber}`;
    self.set(key, (self.get(key) ?? 0) + dt);
    total += dt;
  });
  console.log(`  main-thread self time by function (${total.toFixed(0)} ms sampled):`);
  for (const [key, msSpent] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 15)) {
    console.log(`    ${msSpent.toFixed(0).padStart(6)} ms  ${key}`);
  }
}

interface AllocationNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: AllocationNode[];
}

/** Bytes allocated by function over the sampling heap profile, the 12 largest. */
function printAllocations(head: AllocationNode, seconds: number): void {
  const self = new Map<string, number>();
  let total = 0;
  const visit = (node: AllocationNode) => {
    const frame = node.callFrame;
    const key = `${frame.functionName || '(anonymous)'} ${frame.url.split('/').pop() ?? ''}:${frame.lineNumber}`;
    self.set(key, (self.get(key) ?? 0) + node.selfSize);
    total += node.selfSize;
    for (const child of node.children) visit(child);
  };
  visit(head);
  const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
  console.log(`  allocated by function (sampled, ${mb(total / seconds)} MiB/s in all):`);
  for (const [key, bytes] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 12))
    console.log(`    ${mb(bytes).padStart(6)} MiB  ${key}`);
}

interface MapCamera {
  jumpTo(options: { center: [number, number]; zoom: number }): void;
  getBounds(): { getWest(): number; getEast(): number; getSouth(): number; getNorth(): number };
}

async function insertFleet(fleet: Vehicle[]): Promise<void> {
  const operators = [...new Map(fleet.map((v) => [v.update.operatorId, v.update.pack])).entries()];
  await sys.db.query(
    `INSERT INTO operators (id, name, pack, kind) SELECT id, id, pack, 'cooperative' FROM unnest($1::text[], $2::text[]) AS o(id, pack)`,
    [operators.map(([id]) => id), operators.map(([, pack]) => pack)],
  );
  for (let i = 0; i < fleet.length; i += 5_000) {
    const part = fleet.slice(i, i + 5_000).map((v) => v.update);
    await sys.db.query(
      `INSERT INTO vehicles (id, plate, pack, service_type, capacity, operator_id)
       SELECT id, plate, pack, st, 4, op FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[]) AS v(id, plate, pack, st, op)`,
      [
        part.map((u) => u.vehicleId),
        part.map((u) => u.plate),
        part.map((u) => u.pack),
        part.map((u) => u.serviceType),
        part.map((u) => u.operatorId),
      ],
    );
    await sys.db.query(
      `INSERT INTO vehicle_live (vehicle_id, device_id, ts, lat, lon, speed_kmh, meter_state)
       SELECT id, id, ts, lat, lon, speed, m FROM unnest($1::text[], $2::timestamptz[], $3::float8[], $4::float8[], $5::float8[], $6::text[]) AS l(id, ts, lat, lon, speed, m)`,
      [
        part.map((u) => u.vehicleId),
        part.map((u) => new Date(u.ts)),
        part.map((u) => u.lat),
        part.map((u) => u.lon),
        part.map((u) => u.speedKmh),
        part.map((u) => u.meterState),
      ],
    );
  }
}
