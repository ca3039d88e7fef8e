/**
 * `npm run soak` (issue 12, item 7): the services mode under a state's fleet for ten minutes.
 * 2 ingest and 2 API processes with partitioned rules and a rule worker, on a scratch database
 * of the local PostgreSQL and the local Redis; 20 000 vehicles each sending a sample every 10 s
 * with its own token (round-robin over the ingest processes, as a plain balancer would), 200 of
 * them raising DF_OVER_CAPACITY every 90 s; a dashboard on `/live` per API process. Prints
 * sample → `/live` and sample → violation latency, each process's memory and CPU, records
 * accepted against records stored, and whether TimescaleDB's compression and rollups keep up
 * with that volume. Exits 0 when every verdict holds, 1 when one fails, 2 when the run could not
 * be made. The load generator is this process; the system's are its children. Sizes:
 * load/README.md ("Soak").
 */
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openPostgres } from '@vigia/db';
import { createScratchDatabase, type ScratchDatabase } from '@vigia/db/testing';
import { telemetryAnswerSchema } from '../node/answers.ts';
import { call } from '../node/http.ts';
import { Recorder } from '../node/metrics.ts';
import { pace } from '../node/pace.ts';
import { registerFleet, warmUp } from '../node/register.ts';
import { formatMetrics } from '../node/report.ts';
import { newRunTag, planFleet } from '../scenarios/fleet.ts';
import { ingestAnswerCorrect } from '../scenarios/ingest.ts';
import { cpuSeconds, residentMb, type Service, type ServiceKind, startService, stopServices } from './services.ts';
import { type SoakConfig, soakConfigFrom } from './soak-config.ts';
import { soakSample } from './soak-fleet.ts';
import { MEMORY_GROWTH_LIMIT_PCT, SOAK_METRICS } from './soak-metrics.ts';
import { Watcher } from './soak-watch.ts';
import { checkTimescale, formatTimescale, type TimescaleFigures } from './timescale-check.ts';

/** After the last sample: live pushes, rule workers' reads of their streams and the violations' pushes. */
const DRAIN_MS = 5_000;
const MEMORY_EVERY_MS = 10_000;
const PROGRESS_EVERY_MS = 60_000;
/**
 * A soak that sent fewer samples than this share of its plan (vehicles × duration / interval)
 * did not hold the fleet's rate: the system, or the machine under it, could not take it.
 */
const MIN_SENT_SHARE = 0.95;

interface ProcessFigures {
  name: string;
  startMb: number;
  baselineMb: number;
  endMb: number;
  maxMb: number;
  growthPct: number;
  cpuS: number;
}

async function main(): Promise<number> {
  const config = soakConfigFrom(process.env);
  const scratch = await createScratchDatabase('vigia_soak', config.pgAdminUrl);
  const work = await mkdtemp(join(tmpdir(), 'vigia-soak-'));
  const services: Service[] = [];
  // Interrupted (Ctrl-C, a CI timeout): the services and the scratch database go too.
  const interrupt = (signal: NodeJS.Signals) => {
    console.error(`soak: ${signal}, stopping the services`);
    void stopServices(services)
      .then(() => rm(work, { recursive: true, force: true }))
      .then(() => (config.keepDatabase ? undefined : dropQuietly(scratch)))
      .finally(() => process.exit(130));
  };
  process.once('SIGINT', interrupt);
  process.once('SIGTERM', interrupt);
  try {
    console.log(
      `soak: ${config.vehicles} vehicles every ${config.intervalS} s for ${config.durationS} s (${Math.round(config.vehicles / config.intervalS)} samples/s), ` +
        `${config.ingestProcesses} ingest + ${config.apiProcesses} API + ${config.ruleWorkers} rule worker processes, database ${scratch.url}`,
    );
    const adminToken = `vgsoak_${randomBytes(24).toString('base64url')}`;
    const common = {
      DATABASE_URL: scratch.url,
      REDIS_URL: config.redisUrl,
      // Its own keys: streams, leases and pub/sub of other runs and tests on the same Redis never meet.
      REDIS_PREFIX: `vigia-soak-${randomBytes(4).toString('hex')}`,
      ADMIN_TOKEN: adminToken,
      DEMO: 'off',
      RULES_MODE: 'partitioned',
      // The load generator shares the machine: the event-loop delay it causes is not the system's
      // own overload, and a shed 503 would be counted against the system.
      OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0',
      ...(config.rulesConfigFile ? { RULES_CONFIG_FILE: config.rulesConfigFile } : {}),
    };
    const warn = (name: string, line: string) => console.error(`[${name}] ${line}`);
    const dataDir = async (name: string) => {
      const dir = join(work, name);
      await mkdir(dir, { recursive: true });
      return { DATA_DIR: dir };
    };
    // Each service is listed as soon as it runs, so an interrupted start still stops it.
    const start = async (kind: ServiceKind, name: string) => {
      services.push(await startService(kind, name, { ...common, ...(await dataDir(name)) }, warn));
    };
    // The first process migrates the database; the others find it done.
    await start('api', 'api-1');
    await Promise.all([
      ...range(2, config.apiProcesses).map((i) => start('api', `api-${i}`)),
      ...range(1, config.ingestProcesses).map((i) => start('ingest', `ingest-${i}`)),
      ...range(1, config.ruleWorkers).map((i) => start('rules', `rules-${i}`)),
    ]);
    const exits: string[] = [];
    for (const s of services)
      s.child.once('exit', (code, signal) => exits.push(`${s.name} exited (${code ?? signal})`));
    const apis = services.filter((s) => s.kind === 'api');
    const ingests = services.filter((s) => s.kind === 'ingest');
    const api = apis[0];
    const firstIngest = ingests[0];
    if (!api || !firstIngest) throw new Error('no API or ingest process');

    const now = Date.now();
    const plan = planFleet('live', newRunTag(now, Math.random), config.vehicles, Math.random() * 26 ** 3);
    const registerStarted = performance.now();
    const target = { apiUrl: api.url, ingestUrl: firstIngest.url, adminToken };
    const tokens = await registerFleet(target, plan, now);
    await warmUp(target, plan, tokens, Date.now(), config.concurrency);
    console.log(
      `soak: registered and warmed up ${plan.vehicles.length} vehicles in ${((performance.now() - registerStarted) / 1000).toFixed(1)} s`,
    );

    const vehicleIds = new Set(plan.vehicles.map((v) => v.vehicleId));
    const violatorSends = new Map(plan.vehicles.slice(0, config.violators).map((v) => [v.vehicleId, [] as number[]]));
    const watchers = await Promise.all(apis.map((a) => Watcher.open(a.url, adminToken, vehicleIds, violatorSends)));
    const recorder = new Recorder(SOAK_METRICS);

    const memory = new Map(services.map((s) => [s.name, [] as { atMs: number; mb: number }[]]));
    const readMemory = (atMs: number) => {
      for (const s of services) memory.get(s.name)?.push({ atMs, mb: residentMb(s.child.pid) });
    };
    const cpuAtStart = new Map(services.map((s) => [s.name, cpuSeconds(s.child.pid)]));
    const sendStarted = Date.now();
    const generatorCpu = process.cpuUsage();
    readMemory(0);
    const memoryTimer = setInterval(() => readMemory(Date.now() - sendStarted), MEMORY_EVERY_MS);
    let accepted = 0;
    let sent = 0;
    const progressTimer = setInterval(() => {
      const rss = services.map((s) => `${s.name} ${residentMb(s.child.pid).toFixed(0)} MB`).join(', ');
      console.log(
        `soak: ${Math.round((Date.now() - sendStarted) / 1000)} s, ${sent} sent, ${accepted} accepted; ${rss}`,
      );
    }, PROGRESS_EVERY_MS);

    const run = await pace({
      concurrency: config.concurrency,
      ratePerS: config.vehicles / config.intervalS,
      durationMs: config.durationS * 1000,
      async task(seq) {
        const sample = soakSample(plan, seq, Date.now(), config.violators, config.intervalS);
        const token = tokens[sample.vehicleIndex];
        const ingest = ingests[seq % ingests.length];
        if (!token || !ingest) throw new Error(`no token or ingest for sample ${seq}`);
        if (sample.violator)
          violatorSends.get(plan.vehicles[sample.vehicleIndex]?.vehicleId ?? '')?.push(Date.parse(sample.record.ts));
        sent++;
        const answer = await call(telemetryAnswerSchema, 'POST', `${ingest.url}/v1/telemetry`, token, sample.record);
        const ok = ingestAnswerCorrect(answer.status, answer.body, 1);
        if (ok) accepted++;
        recorder.add('soak_send_duration', answer.ms);
        recorder.add('soak_send_errors', !ok);
      },
    });
    const generatorUsage = process.cpuUsage(generatorCpu);
    const generatorCpuS = (generatorUsage.user + generatorUsage.system) / 1e6;
    await new Promise((resolve) => setTimeout(resolve, DRAIN_MS));
    clearInterval(progressTimer);
    clearInterval(memoryTimer);
    readMemory(Date.now() - sendStarted);
    const processes = processFigures(services, memory, cpuAtStart, config);
    for (const w of watchers) w.close();

    const db = openPostgres(scratch.url, 1);
    let stored = 0;
    let violationsStored = 0;
    try {
      const like = `${plan.operatorId}-v%`;
      const t = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM telemetry WHERE vehicle_id LIKE $1', [
        like,
      ]);
      stored = t.rows[0]?.n ?? 0;
      const v = await db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM violations WHERE rule_id = 'DF_OVER_CAPACITY' AND vehicle_id = ANY($1)",
        [[...violatorSends.keys()]],
      );
      violationsStored = v.rows[0]?.n ?? 0;
    } finally {
      await db.close();
    }
    // The warm-up's samples were accepted too (warmUp fails the run otherwise).
    recorder.add('soak_records_lost', Math.max(0, accepted + plan.vehicles.length - stored));
    for (const w of watchers) {
      for (const d of w.figures.liveDelaysMs) recorder.add('soak_live_delivery', d);
      for (const d of w.figures.violationDelaysMs) recorder.add('soak_violation_delivery', d);
      recorder.add('soak_vehicles_unseen', vehicleIds.size - w.figures.vehiclesSeen);
      recorder.add('soak_violations_unseen', Math.max(0, violationsStored - w.figures.violationsRaised));
    }
    const exitedDuringRun = [...exits];
    await stopServices(services);

    const metrics = recorder.results();
    const planned = Math.floor((config.vehicles * config.durationS) / config.intervalS);
    const rateReached = run.started >= planned * MIN_SENT_SHARE;
    const memoryFlat = processes.every((p) => !(p.growthPct >= MEMORY_GROWTH_LIMIT_PCT));
    const ingestCpuS = processes.filter((p) => p.name.startsWith('ingest')).reduce((s, p) => s + p.cpuS, 0);
    console.log(
      `soak: ${run.started} of ${planned} planned samples sent in ${(run.elapsedMs / 1000).toFixed(1)} s = ${(run.started / (run.elapsedMs / 1000)).toFixed(0)}/s ` +
        `(${run.late} started late); ${accepted} accepted, ${stored - plan.vehicles.length} stored; ` +
        `${violationsStored} DF_OVER_CAPACITY stored; ingest CPU ${((ingestCpuS * 1e6) / Math.max(1, run.started)).toFixed(0)} µs per sample`,
    );
    console.log(
      `  the load generator (this process, with the dashboards): ${((generatorCpuS * 1e6) / Math.max(1, run.started)).toFixed(0)} µs CPU per sample, ` +
        `${((generatorCpuS / (run.elapsedMs / 1000)) * 100).toFixed(0)} % of a core`,
    );
    console.log(
      `  ${rateReached ? '✓' : '✗'} the fleet's rate was held: ${((run.started / planned) * 100).toFixed(1)} % of the planned samples sent (at least ${MIN_SENT_SHARE * 100} %)`,
    );
    for (const line of formatMetrics(metrics)) console.log(line);
    console.log('  process     RSS start → after 1st minute → end (max), median growth, CPU over the run');
    for (const p of processes) {
      console.log(
        `  ${p.name.padEnd(10)}  ${p.startMb.toFixed(0)} → ${p.baselineMb.toFixed(0)} → ${p.endMb.toFixed(0)} MB (max ${p.maxMb.toFixed(0)}), ` +
          `${p.growthPct.toFixed(1)} %, ${p.cpuS.toFixed(1)} s`,
      );
    }
    console.log(
      `  ${memoryFlat ? '✓' : '✗'} memory flat: no process's median memory grew ${MEMORY_GROWTH_LIMIT_PCT} % or more from the first half of the run (after its first minute) to the second`,
    );
    if (exitedDuringRun.length > 0) console.log(`  ✗ processes exited during the run: ${exitedDuringRun.join(', ')}`);

    let timescale: TimescaleFigures | null = null;
    if (config.timescaleRows > 0) {
      timescale = await checkTimescale(config.vehicles, config.intervalS, config.timescaleRows);
      for (const line of formatTimescale(timescale)) console.log(line);
    }
    const keepsUp =
      timescale === null ||
      [timescale.compressS, ...timescale.aggregates.map((a) => a.refreshS)].every(
        (s) => timescale !== null && timescale.rows / s > timescale.arrivalRowsPerS,
      );
    const passed =
      metrics.every((m) => m.thresholds.every((t) => t.ok)) &&
      rateReached &&
      memoryFlat &&
      exitedDuringRun.length === 0 &&
      keepsUp;
    console.log(`soak: ${passed ? 'PASS' : 'FAIL'}`);
    if (config.json) {
      console.log(
        JSON.stringify({
          soak: {
            passed,
            sent: run.started,
            accepted,
            stored,
            violationsStored,
            memoryFlat,
            processes,
            metrics,
            timescale,
          },
        }),
      );
    }
    return passed ? 0 : 1;
  } finally {
    await stopServices(services);
    await rm(work, { recursive: true, force: true });
    if (config.keepDatabase) console.log(`soak: kept ${scratch.url}`);
    else await dropQuietly(scratch);
  }
}

function range(from: number, to: number): number[] {
  return Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i);
}

/**
 * Memory at the start of sending, after the first minute (or a third of a shorter run: caches
 * filled, every vehicle seen), at the end and at its highest; CPU over the run. Growth compares
 * the median reading of the second half of the run after that minute with the first half's: a
 * collector's sawtooth (a rule worker's RSS swings by a gigabyte between its collections) says
 * nothing, a rising median does.
 */
function processFigures(
  services: readonly Service[],
  memory: ReadonlyMap<string, { atMs: number; mb: number }[]>,
  cpuAtStart: ReadonlyMap<string, number>,
  config: SoakConfig,
): ProcessFigures[] {
  const baselineAtMs = Math.min(60_000, (config.durationS * 1000) / 3);
  return services.map((s) => {
    const readings = (memory.get(s.name) ?? []).filter((r) => Number.isFinite(r.mb));
    const start = readings[0]?.mb ?? Number.NaN;
    const settled = readings.filter((r) => r.atMs >= baselineAtMs).map((r) => r.mb);
    const half = Math.floor(settled.length / 2);
    const firstHalf = median(settled.slice(0, Math.max(1, half)));
    const secondHalf = median(settled.slice(half));
    return {
      name: s.name,
      startMb: start,
      baselineMb: settled[0] ?? start,
      endMb: readings[readings.length - 1]?.mb ?? Number.NaN,
      maxMb: Math.max(...readings.map((r) => r.mb)),
      growthPct: ((secondHalf - firstHalf) / firstHalf) * 100,
      cpuS: cpuSeconds(s.child.pid) - (cpuAtStart.get(s.name) ?? Number.NaN),
    };
  });
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

async function dropQuietly(scratch: ScratchDatabase): Promise<void> {
  try {
    await scratch.drop();
  } catch (err) {
    console.error(`soak: could not drop ${scratch.url}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

main().then(
  // Exit at once: kept-alive HTTP connections would hold the process for their idle timeout.
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`soak: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exit(2);
  },
);
