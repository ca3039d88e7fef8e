/**
 * `npm run bench:embedded`: the embedded default under load (README, "The embedded mode under
 * load"). Starts `node api/dist/main.js` as a new user would (PGlite in a fresh folder, the API,
 * the ingest and the demo fleet of DEMO_VEHICLES, default 2 000) in a child process, and beside it
 * a bare HTTP server (bare-server.ts) as the floor. For BENCH_DURATION_S (default 300) it polls
 * both `/health` from this process every BENCH_POLL_MS (default 200), then stops the system and
 * prints:
 *
 * - every sample lands? the samples the fleet made, those stored (counted in the PGlite folder
 *   once the system has stopped), those still queued in the devices when it stopped, dropped;
 * - sample lag p50/p99, sample `ts` → its batch committed (`vigia_ingest_sample_lag_seconds`,
 *   over the measured window, interpolated within the histogram's buckets);
 * - `/health` p50/p99/max of the system against the bare server's, measured in the same run;
 * - the system process's CPU (all its threads, from /proc) per stored sample, and the load average.
 *
 * A script that prints figures, not a test; Linux only (/proc).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { ephemeralPorts, requireProcessCpuSeconds } from '@vigia/core';
import { openPglite } from '@vigia/db';
import { z } from 'zod';

const options = z
  .object({
    DEMO_VEHICLES: z.coerce.number().int().min(3).default(2000),
    BENCH_DURATION_S: z.coerce.number().positive().default(300),
    BENCH_POLL_MS: z.coerce.number().int().positive().default(200),
    /** Extra environment for the system, `KEY=VALUE,KEY=VALUE` (e.g. DEMO_BOOKING_INTERVAL_S=0). */
    BENCH_SYSTEM_ENV: z.string().default(''),
  })
  .parse(process.env);

const ADMIN_TOKEN = 'bench-admin-token-0123456789abcdef';
const main = fileURLToPath(new URL('../main.js', import.meta.url));
const bare = fileURLToPath(new URL('./bare-server.js', import.meta.url));

const logLineSchema = z.looseObject({ msg: z.string().optional() });
const runningSchema = z.looseObject({ msg: z.literal('vigia is running'), url: z.string() });
const stoppedSchema = z.looseObject({
  msg: z.literal('demo fleet stopped'),
  generated: z.number(),
  sent: z.number(),
  accepted: z.number(),
  duplicates: z.number(),
  rejected: z.number(),
  failedRequests: z.number(),
  dropped: z.number(),
  backlog: z.number(),
});

/** Resolves with the first stdout JSON line `pick` accepts; every line also goes to `onLine`. */
function watchLines(child: ChildProcess, onLine: (line: unknown) => void): void {
  if (!child.stdout) return;
  createInterface({ input: child.stdout }).on('line', (text) => {
    try {
      onLine(JSON.parse(text));
    } catch {
      // Not a log line (npm's banner, a stack trace on stderr is elsewhere): ignored.
    }
  });
}

/** A scrape of the system under load: may fail (a saturated process misses undici's 10 s connect timeout); undefined then. */
async function scrape(url: string, headers: Record<string, string>): Promise<string | undefined> {
  for (let attempt = 1; attempt <= 3; attempt++) {
    try {
      const res = await fetch(url, { headers, signal: AbortSignal.timeout(60_000) });
      if (res.ok) return await res.text();
    } catch {
      // Retried below.
    }
  }
  return undefined;
}

/** `name{le="x"} n` lines of one histogram, cumulative counts by upper bound. */
function histogramOf(text: string, name: string): Map<number, number> {
  const buckets = new Map<number, number>();
  const re = new RegExp(`^${name}_bucket\\{le="([^"]+)"\\} (\\S+)$`, 'gm');
  for (const m of text.matchAll(re))
    buckets.set(m[1] === '+Inf' ? Number.POSITIVE_INFINITY : Number(m[1]), Number(m[2]));
  return buckets;
}
function counterOf(text: string, name: string): number {
  const m = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
  return m ? Number(m[1]) : Number.NaN;
}
/** The q-quantile of a cumulative histogram's difference, linear within a bucket. */
function quantileOf(after: Map<number, number>, before: Map<number, number>, q: number): number {
  const bounds = [...after.keys()].sort((a, b) => a - b);
  const counts = bounds.map((b) => (after.get(b) ?? 0) - (before.get(b) ?? 0));
  const total = counts.at(-1) ?? 0;
  if (total === 0) return Number.NaN;
  const target = q * total;
  let lower = 0;
  let below = 0;
  for (const [i, bound] of bounds.entries()) {
    const count = counts[i] ?? 0;
    if (count >= target) {
      if (!Number.isFinite(bound)) return lower; // Past the last bound: at least that.
      return lower + ((bound - lower) * (target - below)) / Math.max(1, count - below);
    }
    lower = bound;
    below = count;
  }
  return lower;
}
const pct = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;

/** Polls `/health` one request at a time until `until`; latencies in ms (a failure counts as its time, and is counted). */
async function pollHealth(url: string, until: number): Promise<{ ms: number[]; failed: number }> {
  const ms: number[] = [];
  let failed = 0;
  while (Date.now() < until) {
    const started = performance.now();
    try {
      const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(30_000) });
      await res.text();
      if (!res.ok) failed++;
    } catch {
      failed++;
    }
    ms.push(performance.now() - started);
    await new Promise((r) => setTimeout(r, options.BENCH_POLL_MS));
  }
  return { ms: ms.sort((a, b) => a - b), failed };
}

const dataDir = await mkdtemp(join(tmpdir(), 'vigia-bench-embedded-'));
const extraEnv = Object.fromEntries(
  options.BENCH_SYSTEM_ENV.split(',')
    .filter(Boolean)
    .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
);
const loadBefore = loadavg();
console.log(
  `embedded bench: DEMO_VEHICLES=${options.DEMO_VEHICLES}, ${options.BENCH_DURATION_S} s, /health polled every ${options.BENCH_POLL_MS} ms; ` +
    `load average ${loadBefore.map((l) => l.toFixed(2)).join(' ')}, data in ${dataDir}`,
);
const system = spawn(process.execPath, [main], {
  env: {
    ...process.env,
    ...ephemeralPorts(),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    DEMO: 'on',
    DEMO_VEHICLES: String(options.DEMO_VEHICLES),
    ADMIN_TOKEN,
    LOG_LEVEL: 'info',
    ...extraEnv,
  },
  stdio: ['ignore', 'pipe', 'inherit'],
});
const floor = spawn(process.execPath, [bare], { stdio: ['ignore', 'pipe', 'inherit'] });
let finalStats: z.infer<typeof stoppedSchema> | undefined;
const warnings = new Map<string, number>();
const systemUrl = new Promise<string>((resolve, reject) => {
  watchLines(system, (line) => {
    const running = runningSchema.safeParse(line);
    if (running.success) resolve(running.data.url);
    const stopped = stoppedSchema.safeParse(line);
    if (stopped.success) finalStats = stopped.data;
    const log = logLineSchema.safeParse(line);
    const level = (line as { level?: number }).level ?? 0;
    // Grouped by code (one line per device otherwise), else by message.
    const key = String(
      (line as { code?: unknown }).code ?? log.data?.msg?.replace(/SIM-[A-Z]+-\d+/g, '<device>') ?? '?',
    );
    if (log.success && level >= 40) warnings.set(key, (warnings.get(key) ?? 0) + 1);
  });
  system.once('exit', (code) => reject(new Error(`the system exited before it was running (${code})`)));
});
const floorUrl = new Promise<string>((resolve) => {
  watchLines(floor, (line) => {
    const parsed = z.object({ url: z.string() }).safeParse(line);
    if (parsed.success) resolve(parsed.data.url);
  });
});
const systemExited = new Promise<number | null>((resolve) => system.once('exit', resolve));
// Whatever fails below, the children do not outlive the bench.
process.once('exit', () => {
  if (system.exitCode === null && system.signalCode === null) system.kill('SIGKILL');
  if (floor.exitCode === null && floor.signalCode === null) floor.kill('SIGKILL');
});

const startedAt = Date.now();
const url = await systemUrl;
const floorAt = await floorUrl;
console.log(`system running at ${url} after ${((Date.now() - startedAt) / 1000).toFixed(1)} s (fleet registered)`);
const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };
const pid = system.pid ?? 0;
const metricsBefore = await scrape(`${url}/metrics`, auth);
const cpuBefore = requireProcessCpuSeconds(pid);
const windowStart = Date.now();
const until = windowStart + options.BENCH_DURATION_S * 1000;
const progress = setInterval(() => {
  console.log(`  ${Math.round((Date.now() - windowStart) / 1000)} s, load average ${loadavg()[0]?.toFixed(2)}`);
}, 60_000);
const [own, base] = await Promise.all([pollHealth(url, until), pollHealth(floorAt, until)]);
clearInterval(progress);
const metricsAfter = await scrape(`${url}/metrics`, auth);
const cpuAfter = requireProcessCpuSeconds(pid);
const windowS = (Date.now() - windowStart) / 1000;
const loadAfter = loadavg();

system.kill('SIGTERM');
floor.kill('SIGTERM');
await systemExited;

const lagName = 'vigia_ingest_sample_lag_seconds';
// No scrape at the start: the whole run's histogram (said so below); none at the end: no lag figures.
const lagBefore = histogramOf(metricsBefore ?? '', lagName);
const lagAfter = histogramOf(metricsAfter ?? '', lagName);
const acceptedName = 'vigia_http_telemetry_records_accepted_total';
const acceptedInWindow = counterOf(metricsAfter ?? '', acceptedName) - counterOf(metricsBefore ?? '', acceptedName);
const lagCount = (lagAfter.get(Number.POSITIVE_INFINITY) ?? 0) - (lagBefore.get(Number.POSITIVE_INFINITY) ?? 0);

const db = await openPglite(join(dataDir, 'pgdata'));
const stored = Number((await db.query<{ n: string }>('SELECT count(*) AS n FROM telemetry')).rows[0]?.n);
await db.close();
await rm(dataDir, { recursive: true, force: true });

const f = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');
const cpuS = cpuAfter - cpuBefore;
console.log('');
console.log(`window ${f(windowS, 1)} s; load average ${loadAfter.map((l) => l.toFixed(2)).join(' ')} at the end`);
if (finalStats) {
  // A sample still queued at stop may be stored all the same (its request timed out after the
  // server took it): lost = made − stored − queued, and every sample lands when that is ≤ 0.
  const lost = finalStats.generated - stored - finalStats.backlog;
  console.log(
    `samples: made ${finalStats.generated}, stored ${stored}, queued in the devices at stop ${finalStats.backlog}, ` +
      `dropped from full backlogs ${finalStats.dropped}, rejected ${finalStats.rejected}, failed requests ${finalStats.failedRequests} ` +
      `(retried); lost ${Math.max(0, lost)}: every sample lands: ${lost <= 0 && finalStats.dropped === 0 ? 'yes' : 'NO'}`,
  );
} else {
  console.log(`samples: stored ${stored}; the fleet's final figures were not logged (did the system stop cleanly?)`);
}
console.log(
  `sample lag (ts → committed) over the window: p50 ${f(quantileOf(lagAfter, lagBefore, 0.5), 2)} s, ` +
    `p99 ${f(quantileOf(lagAfter, lagBefore, 0.99), 2)} s (${lagCount} samples, ${f(lagCount / windowS)} /s; target p99 ≤ 5 s)` +
    (metricsBefore ? '' : ' [/metrics did not answer at the start: since start-up]') +
    (metricsAfter ? '' : ' [/metrics did not answer at the end]'),
);
console.log(
  `/health: system p50 ${f(pct(own.ms, 0.5), 1)} ms, p99 ${f(pct(own.ms, 0.99), 1)} ms, max ${f(own.ms.at(-1) ?? Number.NaN, 1)} ms ` +
    `(${own.ms.length} polls, ${own.failed} failed); bare server p50 ${f(pct(base.ms, 0.5), 1)} ms, p99 ${f(pct(base.ms, 0.99), 1)} ms ` +
    `(${base.ms.length} polls); target system p99 ≤ 100 ms`,
);
console.log(
  `system CPU: ${f(cpuS, 1)} s over ${f(windowS, 1)} s (${f((100 * cpuS) / windowS)} % of one core, all threads), ` +
    `${f((cpuS * 1e6) / Math.max(1, acceptedInWindow))} µs per sample accepted (${f(acceptedInWindow)} accepted in the window)`,
);
if (warnings.size > 0) {
  console.log(
    `system warnings and errors by code: ${[...warnings]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 8)
      .map(([msg, n]) => `${n}× ${msg}`)
      .join('; ')}`,
  );
}
