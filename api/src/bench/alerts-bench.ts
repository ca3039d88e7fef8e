/**
 * `npm run bench:alerts`: alert latency (issue 9: p99 from violation commit to the receiver's 2xx
 * ≤ 1 s with 20 violations/s being raised). The built system (telemetry, live rules, the outbox
 * rows written with each violation, the alert worker) as one process, or the ingest and API
 * services as two (BENCH_ALERT_MODE, below), on a scratch PostgreSQL database (TEST_PG_URL,
 * default the machine's), and a signed-webhook receiver in this process. Each violation is a DF
 * taxi carrying 6 passengers for a minute, sent through `POST /v1/telemetry`, BENCH_ALERT_RATE a
 * second (default 20) for BENCH_ALERT_SECONDS (default 30).
 *
 * Latency is measured from the event's `createdAt` (PostgreSQL's now() in the transaction that
 * wrote the violation: at or before its commit, so the figure errs long) to the moment the
 * receiver answers; and, for reference, from the telemetry request's answer. The API process's CPU
 * per alert is its user + system time over the run (Linux /proc) divided by the alerts delivered.
 * A script that prints figures, not a test.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { requireProcessCpuSeconds, sideBySideServiceEnv } from '@vigia/core';
import { openPostgres } from '@vigia/db';
import { createScratchDatabase } from '@vigia/db/testing';
import { z } from 'zod';
import { AlertReceiver } from './alert-receiver.js';
import { type FleetTaxi, overCapacity, registerFleet } from './over-capacity-fleet.js';

const ADMIN_TOKEN = 'bench-admin-token-0123456789';
// The knobs, checked: a typo fails here instead of running with NaN.
const { BENCH_ALERT_RATE: RATE, BENCH_ALERT_SECONDS: SECONDS } = z
  .object({
    BENCH_ALERT_RATE: z.coerce.number().positive().default(20),
    BENCH_ALERT_SECONDS: z.coerce.number().positive().default(30),
  })
  .parse(process.env);
/**
 * BENCH_ALERT_MODE=services: ingest and API as two processes (then the CPU figure is the alert
 * worker's API process alone); they share registry changes over Redis, so give REDIS_URL.
 * Default: one process, as `npm start` (its CPU includes ingest and the rules).
 */
const SERVICES = process.env.BENCH_ALERT_MODE === 'services';

/** Starts a built entry point on a free port; resolves with its URL once it logs that it listens. */
async function start(entry: string, env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [new URL(entry, import.meta.url).pathname], {
    env: sideBySideServiceEnv(env),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  for await (const line of lines) {
    let entryLog: { msg?: string; url?: string };
    try {
      entryLog = JSON.parse(line) as { msg?: string; url?: string };
    } catch {
      continue;
    }
    if (entryLog.url && (entryLog.msg === 'vigia is running' || entryLog.msg === 'ingest service running')) {
      // Keep draining the service's log so a full pipe never stalls it.
      // Warnings and errors go to the console: a bench that measures a failing system says so.
      lines.on('line', (l) => {
        if (/"level":(4|5|6)0/.test(l)) console.error(l.slice(0, 400));
      });
      return { child, url: entryLog.url };
    }
  }
  throw new Error(`${entry} exited before listening`);
}

/** What the database holds, for a failure message. */
async function tally(url: string): Promise<string> {
  const db = openPostgres(url, 1);
  try {
    const { rows } = await db.query<{ v: string; t: string; e: string; d: string; ds: string }>(
      `SELECT (SELECT count(*) FROM violations) AS v, (SELECT count(*) FROM telemetry) AS t, (SELECT count(*) FROM alert_events) AS e,
              (SELECT count(*) FROM alert_deliveries) AS d,
              (SELECT string_agg(DISTINCT status || ':' || coalesce(last_error, ''), ',') FROM alert_deliveries) AS ds`,
    );
    return JSON.stringify(rows[0]);
  } finally {
    await db.close();
  }
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;

async function main(): Promise<void> {
  if (SERVICES && !process.env.REDIS_URL)
    throw new Error('BENCH_ALERT_MODE=services needs REDIS_URL (README: several processes)');
  const scratch = await createScratchDatabase('vigia_alert_bench');
  const receiver = await AlertReceiver.start();
  const env = {
    DATABASE_URL: scratch.url,
    ADMIN_TOKEN,
    DEMO: 'off',
    ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
  };
  const procs: ChildProcess[] = [];
  try {
    const apiService = await start(SERVICES ? '../api-main.js' : '../main.js', env);
    procs.push(apiService.child);
    const ingestService = SERVICES ? await start('../../../ingest/dist/main.js', env) : apiService;
    if (SERVICES) procs.push(ingestService.child);
    const apiClient = { url: apiService.url, adminToken: ADMIN_TOKEN };
    const ingestClient = { url: ingestService.url, adminToken: ADMIN_TOKEN };
    const secret = 'bench-webhook-secret-0123456789abcdef';
    const res = await fetch(`${apiService.url}/v1/alert-subscriptions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'bench', url: receiver.url('bench', secret), secret }),
    });
    if (res.status !== 201) throw new Error(`subscription: ${res.status} ${await res.text()}`);

    const total = RATE * SECONDS;
    const fleet = await registerFleet(apiClient, total + RATE, `bench${Date.now().toString(36)}`);
    const t0 = Date.now() - 3_600_000;
    // Warm-up: one second's worth, until its alerts arrive (the ingest service has loaded the fleet).
    const warm = fleet.slice(total);
    await overCapacity(ingestClient, warm, t0);
    const warmIds = new Set(warm.map((t) => t.vehicleId));
    const deadline = Date.now() + 20_000;
    while (receiver.delivered().filter((r) => warmIds.has(String(r.body.violation.vehicleId))).length < warm.length) {
      if (Date.now() > deadline)
        throw new Error(`warm-up alerts did not arrive within 20 s: ${await tally(scratch.url)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const measured = new Set(fleet.slice(0, total).map((t) => t.vehicleId));

    const answeredAt = new Map<string, number>();
    const cpu0 = requireProcessCpuSeconds(apiService.child.pid ?? 0);
    const started = Date.now();
    const sends: Promise<void>[] = [];
    for (let i = 0; i < total; i++) {
      const due = started + (i * 1000) / RATE;
      const wait = due - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const taxi = fleet[i] as FleetTaxi;
      sends.push(overCapacity(ingestClient, [taxi], t0).then(() => void answeredAt.set(taxi.vehicleId, Date.now())));
    }
    await Promise.all(sends);
    const sentIn = (Date.now() - started) / 1000;
    const settle = Date.now() + 30_000;
    const ours = () => receiver.delivered().filter((r) => measured.has(String(r.body.violation.vehicleId)));
    while (new Set(ours().map((r) => r.eventId)).size < total && Date.now() < settle)
      await new Promise((r) => setTimeout(r, 100));
    const cpu = requireProcessCpuSeconds(apiService.child.pid ?? 0) - cpu0;

    const firsts = new Map<string, { arrivedAt: number; createdAt: number; vehicleId: string }>();
    for (const r of ours())
      if (!firsts.has(r.eventId))
        firsts.set(r.eventId, {
          arrivedAt: r.arrivedAt,
          createdAt: Date.parse(r.body.createdAt),
          vehicleId: String(r.body.violation.vehicleId),
        });
    const fromCommit = [...firsts.values()].map((f) => f.arrivedAt - f.createdAt).sort((a, b) => a - b);
    const fromAnswer = [...firsts.values()]
      .map((f) => f.arrivedAt - (answeredAt.get(f.vehicleId) ?? Number.NaN))
      .filter((x) => Number.isFinite(x))
      .sort((a, b) => a - b);
    const invalid = receiver.requests.filter((r) => !r.signatureValid).length;
    console.log(
      `${total} violations sent at ${(total / sentIn).toFixed(1)}/s over ${sentIn.toFixed(1)} s; ${firsts.size} alerts delivered (${receiver.requests.length} requests in all, ${invalid} with a bad signature)`,
    );
    console.log('latency (ms)                          |   p50 |   p95 |   p99 |   max');
    const row = (label: string, xs: number[]) =>
      console.log(
        `${label.padEnd(37)} | ${[50, 95, 99, 100].map((p) => String(percentile(xs, p)).padStart(5)).join(' | ')}`,
      );
    row('violation commit → receiver 2xx', fromCommit);
    row('telemetry answered → receiver 2xx', fromAnswer);
    console.log(
      `API process CPU: ${cpu.toFixed(2)} s, ${((cpu * 1e6) / Math.max(1, firsts.size)).toFixed(0)} µs per alert`,
    );
    if (firsts.size < total) process.exitCode = 1;
  } finally {
    for (const p of procs) p.kill('SIGTERM');
    await Promise.all(procs.map((p) => new Promise((r) => (p.exitCode !== null ? r(null) : p.once('exit', r)))));
    await receiver.close();
    await scratch.drop();
  }
}

await main();
