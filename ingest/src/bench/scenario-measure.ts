/**
 * One scenario's clock and the ingest's CPU around it. The load window runs from `begin()` (called
 * by the load once its generator is ready, so making requests is not counted) to the last answer;
 * the ingest's rule engine judges stored samples after they are acknowledged, so its CPU is read
 * again once the process has gone quiet: CPU per record counts that tail, the busy share only the
 * load window.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { CpuReader } from './ingest-cpu.js';

export interface LoadOutcome {
  /** Records the generator sent. */
  sent: number;
  /** Seconds of load as the generator timed it; default the window from begin() to the return. */
  seconds?: number;
  /** Per request (HTTP) or per packet round trip (TCP). */
  latencyMs?: { p50: number; p99: number };
}

export interface Measurement {
  sent: number;
  /** Seconds of load, for records/s. */
  seconds: number;
  /** Wall seconds of the load window as the bench saw it (from begin() to the load's return). */
  windowS: number;
  /** Ingest CPU seconds in the load window. */
  loadCpuS: number;
  /** Ingest CPU seconds from the start until the process was quiet again. */
  totalCpuS: number;
  /** Wall seconds between the end of the load and the ingest going quiet (the rule backlog). */
  tailS: number;
  latencyMs?: { p50: number; p99: number };
}

/** A process using at most this share of a core over a poll is done with the scenario's work. */
const QUIET_SHARE = 0.05;
const POLL_MS = 250;
const MAX_TAIL_MS = 120_000;

export async function measureLoad(
  cpu: CpuReader,
  load: (begin: () => Promise<void>) => Promise<LoadOutcome>,
): Promise<Measurement> {
  let start: { ms: number; cpuS: number } | undefined;
  const outcome = await load(async () => {
    start = { cpuS: await cpu.read(), ms: performance.now() };
  });
  if (!start) throw new Error('the load never called begin()');
  const endMs = performance.now();
  const loadCpuS = (await cpu.read()) - start.cpuS;
  const quiet = await waitQuiet(cpu);
  return {
    sent: outcome.sent,
    seconds: outcome.seconds ?? (endMs - start.ms) / 1000,
    windowS: (endMs - start.ms) / 1000,
    loadCpuS,
    totalCpuS: quiet.cpuS - start.cpuS,
    tailS: Math.max(0, (quiet.ms - endMs) / 1000),
    ...(outcome.latencyMs ? { latencyMs: outcome.latencyMs } : {}),
  };
}

/** Polls until one poll saw the process (nearly) idle; returns the reading at the start of that poll. */
async function waitQuiet(cpu: CpuReader): Promise<{ ms: number; cpuS: number }> {
  const deadline = performance.now() + MAX_TAIL_MS;
  let previous = { ms: performance.now(), cpuS: await cpu.read() };
  for (;;) {
    await sleep(POLL_MS);
    const now = { ms: performance.now(), cpuS: await cpu.read() };
    if (now.cpuS - previous.cpuS <= (QUIET_SHARE * (now.ms - previous.ms)) / 1000) return previous;
    if (now.ms > deadline) throw new Error(`the ingest was still busy ${MAX_TAIL_MS / 1000} s after the load`);
    previous = now;
  }
}

/** The p50 and p99 of `values` (nearest rank), undefined when there are none. */
export function percentiles(values: number[]): { p50: number; p99: number } | undefined {
  if (values.length === 0) return undefined;
  const sorted = Float64Array.from(values).sort();
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? 0;
  return { p50: at(0.5), p99: at(0.99) };
}
