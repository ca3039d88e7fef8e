/**
 * Throughput of the pure rule engine on one core: a mixed fleet of 10 000 vehicles (taxis in
 * Brasília and Belém, charter buses around São Paulo) against 20 000 regular-service stops, 500
 * taxi stands and 100 zones. Uses the real SPTrans and DF stops from ../shared/data when present
 * (the only file I/O of the package), synthetic stops otherwise, and says which. Telemetry is
 * generated step by step (one sample per vehicle every 5 s of fleet time); only the engine's
 * `ingest` calls are timed. Prints figures; it is not a test. It also prints what a checkpoint of
 * the fleet's rule state costs (bytes per vehicle, CPU to write and restore per 10 000 vehicles).
 *
 * Besides the wall-clock rate it prints the process's CPU time per sample over the timed calls
 * (`process.cpuUsage`), which is what to compare on a machine shared with other work. `--digest`
 * also hashes every event the engine returns (outside the timed calls), so an optimisation can be
 * checked to leave every decision as it was: the digest must not change.
 *
 *   npm run bench:rules [-- --vehicles 10000 --steps 120 --digest]
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Pack, seededRandom, type Telemetry } from '@vigia/core';
import { checkpointEngine, restoreEngine } from '../engine/checkpoint.js';
import { createRuleEngine, type PackConfigs } from '../engine/rule-engine.js';
import { degreesAround } from '../geo/distance.js';
import { parseGtfsStops, splitCsvRecord } from '../registry/gtfs-stops.js';
import { createInMemoryRegistry } from '../registry/in-memory-registry.js';
import type { RegistryRecordsInput } from '../registry/records.js';
import { zonedInstant } from '../time/local-time.js';

type Records = Required<RegistryRecordsInput>;
type StopIn = Records['stops'][number];

const args = process.argv.slice(2);
const arg = (name: string, def: number): number => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : def;
};
const VEHICLES = arg('vehicles', 10_000);
const STEPS = arg('steps', 120);
const DIGEST = args.includes('--digest');
const STOPS = 20_000;
const STANDS = 500;
const ZONES = 100;
const STEP_S = 5;

/** Deterministic, so every run drives the same fleet. */
const rand = seededRandom(20260304);
const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)] as T;

const CITIES = {
  sp: { lat: -23.55, lon: -46.63, spread: 0.15 },
  df: { lat: -15.79, lon: -47.88, spread: 0.12 },
  belem: { lat: -1.43, lon: -48.47, spread: 0.06 },
};
const near = (c: { lat: number; lon: number; spread: number }) => ({
  lat: c.lat + (rand() - 0.5) * 2 * c.spread,
  lon: c.lon + (rand() - 0.5) * 2 * c.spread,
});

function loadStops(): { stops: StopIn[]; source: string } {
  const here = dirname(fileURLToPath(import.meta.url));
  const shared = process.env.VIGIA_SHARED_DATA ?? resolve(here, '../../../../shared/data');
  const spFile = resolve(shared, 'sptrans_gtfs/stops.txt');
  const dfFile = resolve(shared, 'df_bus_stops/dados_paradas.csv');
  if (existsSync(spFile) && existsSync(dfFile)) {
    const sp = parseGtfsStops(readFileSync(spFile, 'utf8'), 'sptrans-gtfs-2026-01-31');
    const dfLines = readFileSync(dfFile, 'utf8').split(/\r?\n/).slice(1);
    const df: StopIn[] = [];
    for (const line of dfLines) {
      const f = splitCsvRecord(line);
      const lat = Number(f[2]);
      const lon = Number(f[3]);
      if (f[0] && Number.isFinite(lat) && Number.isFinite(lon))
        df.push({ id: `df-${f[0]}`, name: f[1] ?? '', lat, lon, source: 'df-paradas' });
    }
    const fromDf = Math.min(df.length, Math.round(STOPS * 0.35));
    const stops = [...sp.slice(0, STOPS - fromDf), ...df.slice(0, fromDf)];
    return { stops, source: `real: ${STOPS - fromDf} SPTrans GTFS stops + ${fromDf} DF stops (${shared})` };
  }
  const stops: StopIn[] = [];
  for (let i = 0; i < STOPS; i++)
    stops.push({ id: `syn-${i}`, name: `Parada ${i}`, ...near(i % 3 ? CITIES.sp : CITIES.df), source: 'synthetic' });
  return { stops, source: `synthetic: ${STOPS} stops (shared data not found at ${shared})` };
}

function square(lat: number, lon: number, halfM: number) {
  const { dLat, dLon } = degreesAround(lat, halfM);
  return {
    type: 'Polygon' as const,
    coordinates: [
      [
        [lon - dLon, lat - dLat],
        [lon + dLon, lat - dLat],
        [lon + dLon, lat + dLat],
        [lon - dLon, lat + dLat],
        [lon - dLon, lat - dLat],
      ] as [number, number][],
    ],
  };
}

interface SimVehicle {
  id: string;
  pack: Pack;
  lat: number;
  lon: number;
  heading: number;
  speed: number;
  /** Seconds left in the current activity. */
  left: number;
  mode: 'cruise' | 'hired' | 'wait' | 'dwell';
  trip: number;
  fare: number;
  tariff: 1 | 2;
  passengers: number;
  door: boolean;
}

function build() {
  const { stops, source } = loadStops();
  const records: Records = {
    vehicles: [],
    operators: [
      { id: 'op-sp', name: 'Fretadora', pack: 'sp-fretamento', kind: 'charter-company', status: 'authorized' },
      { id: 'op-df', name: 'Cooperativa DF', pack: 'df-taxi', kind: 'cooperative', status: 'authorized' },
      { id: 'op-bel', name: 'Cooperativa Belém', pack: 'belem-taxi', kind: 'cooperative', status: 'authorized' },
    ],
    drivers: [],
    stops,
    stands: [],
    zones: [],
    contracts: [],
    unitValues: [
      { unit: 'ORTN', validFrom: '2000-01-01', valueBrl: 80 },
      { unit: 'UPDF', validFrom: '2000-01-01', valueBrl: 120 },
      { unit: 'UT', pack: 'df-taxi', validFrom: '2000-01-01', valueBrl: 1.6 },
      { unit: 'IPCA-E', pack: 'belem-taxi', validFrom: '2000-01-01', valueBrl: 4.5 },
    ],
    holidayOverrides: [],
  };
  const spStops = stops.filter((s) => s.lat < -20);
  for (let i = 0; i < STANDS; i++) {
    const df = i % 2 === 0;
    const p = near(df ? CITIES.df : CITIES.belem);
    standSpots[df ? 'df-taxi' : 'belem-taxi']?.push(p);
    records.stands.push({
      id: `stand-${i}`,
      pack: df ? 'df-taxi' : 'belem-taxi',
      name: `Ponto ${i}`,
      geometry: square(p.lat, p.lon, 25),
      places: 3 + (i % 5),
      kind: i % 4 === 1 ? 'fixo' : 'livre',
      holderVehicleIds: [],
    });
  }
  for (let i = 0; i < ZONES; i++) {
    const pack: Pack = i % 3 === 0 ? 'sp-fretamento' : i % 3 === 1 ? 'df-taxi' : 'belem-taxi';
    const c = pack === 'sp-fretamento' ? CITIES.sp : pack === 'df-taxi' ? CITIES.df : CITIES.belem;
    const p = near(c);
    const kind =
      pack === 'sp-fretamento' ? 'speed-limit' : pick(['unpaved', 'bandeira2-signed', 'speed-limit'] as const);
    records.zones.push({
      id: `zone-${i}`,
      pack,
      kind,
      name: `Zona ${i}`,
      geometry: square(p.lat, p.lon, 400 + rand() * 800),
      speedLimitKmh: kind === 'speed-limit' ? 40 : null,
    });
  }
  records.zones.push({
    id: 'SBBR',
    pack: 'df-taxi',
    kind: 'airport',
    name: 'Aeroporto de Brasília',
    geometry: square(-15.8692, -47.9208, 1500),
  });

  const fleet: SimVehicle[] = [];
  for (let i = 0; i < VEHICLES; i++) {
    const r = i % 10;
    const pack: Pack = r < 4 ? 'df-taxi' : r < 7 ? 'belem-taxi' : 'sp-fretamento';
    const id = `v-${i}`;
    const bus = pack === 'sp-fretamento';
    records.vehicles.push({
      id,
      plate: `BCH${String(i).padStart(4, '0')}`,
      pack,
      serviceType: bus ? 'fretamento-continuo' : 'taxi',
      capacity: bus ? 44 : 4,
      manufactureYear: 2012 + (i % 14),
      operatorId: bus ? 'op-sp' : pack === 'df-taxi' ? 'op-df' : 'op-bel',
      permitNumber: `P-${i}`,
      permitValidUntil: i % 50 === 0 ? '2026-01-31' : '2027-12-31',
      lastInspectionDate: i % 40 === 0 ? '2024-01-01' : '2026-01-01',
      divValidUntil: i % 45 === 0 ? '2026-02-28' : '2027-03-01',
      driverIds: [`d-${i}`],
      status: 'active',
      tachographLinked: bus,
    });
    const start = bus ? pick(spStops) : near(pack === 'df-taxi' ? CITIES.df : CITIES.belem);
    fleet.push({
      id,
      pack,
      lat: start.lat,
      lon: start.lon,
      heading: rand() * 360,
      speed: 30,
      left: rand() * 300,
      mode: bus || rand() < 0.5 ? 'cruise' : 'hired',
      trip: 0,
      fare: 0,
      tariff: 1,
      passengers: bus ? 20 : 0,
      door: false,
    });
  }
  return { records, fleet, source };
}

const M_PER_DEG = 111_195;
/** Where waiting taxis go: the stands of their city. */
const standSpots: Record<string, { lat: number; lon: number }[]> = { 'df-taxi': [], 'belem-taxi': [] };

function step(v: SimVehicle, ms: number): Telemetry {
  const bus = v.pack === 'sp-fretamento';
  v.left -= STEP_S;
  if (v.left <= 0) {
    if (bus) {
      v.mode = v.mode === 'dwell' ? 'cruise' : rand() < 0.3 ? 'dwell' : 'cruise';
      v.left = v.mode === 'dwell' ? 20 : 60 + rand() * 120;
      v.door = v.mode === 'dwell' && rand() < 0.5;
      if (v.mode === 'dwell' && v.door) v.passengers = Math.min(50, v.passengers + 2);
    } else if (v.mode === 'hired') {
      v.mode = rand() < 0.3 ? 'wait' : 'cruise';
      v.left = 60 + rand() * 240;
      v.passengers = 0;
      if (v.mode === 'wait') {
        // Queue at one of the city's stands (a few metres apart, inside its 50 m square).
        const spot = pick(standSpots[v.pack] ?? []);
        v.lat = spot.lat + (rand() - 0.5) * 0.0003;
        v.lon = spot.lon + (rand() - 0.5) * 0.0003;
      }
    } else {
      v.mode = 'hired';
      v.trip++;
      v.fare = 500;
      v.tariff = rand() < 0.35 ? 2 : 1;
      v.passengers = 1 + Math.floor(rand() * (rand() < 0.02 ? 6 : 3));
      v.left = 300 + rand() * 900;
    }
    v.heading = (v.heading + (rand() - 0.5) * 120 + 360) % 360;
  }
  const moving = v.mode === 'cruise' || v.mode === 'hired';
  v.speed = moving ? Math.max(5, Math.min(bus ? 85 : 70, v.speed + (rand() - 0.5) * 10)) : 0;
  const d = (v.speed / 3.6) * STEP_S;
  const h = (v.heading * Math.PI) / 180;
  v.lat += (d * Math.cos(h)) / M_PER_DEG;
  v.lon += (d * Math.sin(h)) / (M_PER_DEG * Math.cos((v.lat * Math.PI) / 180));
  if (v.mode === 'hired') v.fare += Math.round(d * 0.25);
  const ts = new Date(ms);
  return {
    deviceId: `dev-${v.id}`,
    vehicleId: v.id,
    ts,
    receivedAt: ts,
    lat: v.lat,
    lon: v.lon,
    speedKmh: v.speed,
    headingDeg: v.heading,
    accuracyM: 5,
    ignition: true,
    doorOpen: bus ? v.door : null,
    passengers: v.passengers,
    childrenUnder7: bus ? null : 0,
    boardings: bus ? (v.door ? 1 : 0) : null,
    alightings: bus ? 0 : null,
    meterState: bus ? null : v.mode === 'hired' ? 'hired' : 'free',
    meterTariff: bus || v.mode !== 'hired' ? null : v.tariff,
    meterFareCents: bus || v.mode !== 'hired' ? null : v.fare,
    meterTripId: bus || v.mode !== 'hired' ? null : `${v.id}-${v.trip}`,
    tachoSpeedKmh: bus ? v.speed * (rand() < 0.01 ? 0.7 : 1) : null,
    tachoDriverId: `d-${v.id.slice(2)}`,
  };
}

const ENGINE_PACKS: PackConfigs = {
  'df-taxi': { tariff: { kmB1Ut: 1.5, waitingHourUt: 20 }, groupUpdfPercent: { A: 10, B: 20, C: 40, D: 100 } },
  'belem-taxi': { tariff: { bandeiradaCents: 500, kmB1Cents: 300, kmB2Cents: 360, waitingHourCents: 3000 } },
};

function main(): void {
  const t0 = performance.now();
  const { records, fleet, source } = build();
  const registry = createInMemoryRegistry(records);
  const engine = createRuleEngine({ registry, packs: ENGINE_PACKS });
  const setupMs = performance.now() - t0;
  // 19:50 local on a Wednesday: Bandeira II changes legality at 20:00 during the run.
  const start = zonedInstant('America/Sao_Paulo', '2026-03-04', '19:50:00').getTime();
  let samples = 0;
  let events = 0;
  let engineMs = 0;
  let engineCpuUs = 0;
  const digest = createHash('sha256');
  const byRule = new Map<string, number>();
  const count = (list: ReturnType<typeof engine.ingest>): void => {
    for (const e of list) {
      events++;
      if (e.type === 'raised') byRule.set(e.violation.ruleId, (byRule.get(e.violation.ruleId) ?? 0) + 1);
    }
  };
  const cpuUs = (c: NodeJS.CpuUsage): number => c.user + c.system;
  const batch: Telemetry[] = new Array(fleet.length);
  const results: ReturnType<typeof engine.ingest>[] = DIGEST ? new Array(fleet.length) : [];
  for (let s = 0; s < STEPS; s++) {
    const ms = start + s * STEP_S * 1000;
    for (let i = 0; i < fleet.length; i++) batch[i] = step(fleet[i] as SimVehicle, ms + (i % 5) * 1000);
    const c = process.cpuUsage();
    const t = performance.now();
    if (DIGEST) {
      for (let i = 0; i < batch.length; i++) results[i] = engine.ingest(batch[i] as Telemetry);
    } else for (const sample of batch) count(engine.ingest(sample));
    engineMs += performance.now() - t;
    engineCpuUs += cpuUs(process.cpuUsage(c));
    samples += batch.length;
    if (DIGEST) {
      for (const list of results) {
        count(list);
        for (const e of list) digest.update(JSON.stringify(e));
      }
    }
  }
  // Checkpoint cost (engine/checkpoint.ts), on the fleet as it stands mid-stream, before the close.
  const cpBefore = process.cpuUsage();
  const checkpoint = checkpointEngine(engine);
  const checkpointCpuUs = cpuUs(process.cpuUsage(cpBefore));
  const restored = createRuleEngine({ registry, packs: ENGINE_PACKS });
  const rsBefore = process.cpuUsage();
  restoreEngine(restored, checkpoint);
  const restoreCpuUs = cpuUs(process.cpuUsage(rsBefore));
  const c = process.cpuUsage();
  const t = performance.now();
  const closing = engine.close();
  engineMs += performance.now() - t;
  engineCpuUs += cpuUs(process.cpuUsage(c));
  count(closing);
  if (DIGEST) for (const e of closing) digest.update(JSON.stringify(e));

  const raised = [...byRule.values()].reduce((a, b) => a + b, 0);
  const stats = engine.stats();
  console.log(`@vigia/rules bench — node ${process.version}, one core`);
  console.log(`stops: ${source}`);
  console.log(
    `registry: ${records.vehicles.length} vehicles, ${records.stops.length} stops, ${records.stands.length} stands, ${records.zones.length} zones (built in ${setupMs.toFixed(0)} ms incl. fleet)`,
  );
  console.log(
    `fleet: ${fleet.filter((v) => v.pack === 'df-taxi').length} DF taxis, ${fleet.filter((v) => v.pack === 'belem-taxi').length} Belém taxis, ${fleet.filter((v) => v.pack === 'sp-fretamento').length} SP charter buses; ${STEPS} steps of ${STEP_S} s`,
  );
  console.log(
    `samples: ${samples} in ${(engineMs / 1000).toFixed(2)} s of engine time → ${Math.round(samples / (engineMs / 1000)).toLocaleString('en-US')} samples/s`,
  );
  console.log(
    `CPU: ${((engineCpuUs / 1e6) * 1000).toFixed(0)} ms over the timed calls → ${(engineCpuUs / samples).toFixed(2)} µs CPU per sample (${Math.round(samples / (engineCpuUs / 1e6)).toLocaleString('en-US')} samples per CPU-second)`,
  );
  console.log(
    `violations raised: ${raised} (events incl. updates/withdrawals: ${events}); judged ${stats.judged}, late ${stats.late}, duplicates ${stats.duplicates}`,
  );
  for (const [rule, n] of [...byRule.entries()].sort((a, b) => b[1] - a[1])) console.log(`  ${rule.padEnd(32)} ${n}`);
  const per10k = (us: number) => ((us / 1000) * 10_000) / stats.vehicles;
  const stepCpuUs = engineCpuUs / STEPS;
  console.log(
    `checkpoint: ${checkpoint.length} bytes for ${stats.vehicles} vehicles (${(checkpoint.length / stats.vehicles).toFixed(0)} bytes per vehicle); CPU ${per10k(checkpointCpuUs).toFixed(0)} ms to write and ${per10k(restoreCpuUs).toFixed(0)} ms to restore per 10 000 vehicles; writing it costs ${((100 * checkpointCpuUs) / stepCpuUs).toFixed(0)} % of the CPU the engine spent judging one sample of every vehicle`,
  );
  if (DIGEST) console.log(`events digest (sha256 of every event as JSON, in order): ${digest.digest('hex')}`);
}

main();
