/**
 * The ingest process's own CPU time (user + system seconds), read before and after a scenario.
 * Preferred source: its `GET /metrics`, prom-client's default `process_cpu_user_seconds_total`
 * and `process_cpu_system_seconds_total` (`process.cpuUsage()`, µs resolution, what an operator's
 * Prometheus sees). Until the service exposes them, /proc/<pid>/stat (Linux, 10 ms ticks): the
 * bench says which one it used.
 */
import { requireProcessCpuSeconds } from '@vigia/core';

export type CpuSource = 'metrics' | 'proc';

export interface CpuReader {
  source: CpuSource;
  /** CPU seconds the process has used so far. */
  read(): Promise<number>;
  /** Its system CPU and batch counters so far; undefined when its /metrics does not have them. */
  counters(): Promise<IngestCounters | undefined>;
}

/** The value of the first sample of `name` (any labels) in a Prometheus text exposition. */
export function metricValue(text: string, name: string): number | undefined {
  // A sample line: name, optional labels, value (an optional timestamp after it).
  const match = new RegExp(`^${name}(?:\\{[^}]*\\})?\\s+(\\S+)`, 'm').exec(text);
  const n = match?.[1] === undefined ? Number.NaN : Number(match[1]);
  return Number.isFinite(n) ? n : undefined;
}

/** user + system CPU seconds from a Prometheus text exposition, or undefined when either is missing. */
export function cpuSecondsFromMetrics(text: string): number | undefined {
  const user = metricValue(text, 'process_cpu_user_seconds_total');
  const system = metricValue(text, 'process_cpu_system_seconds_total');
  return user === undefined || system === undefined ? undefined : user + system;
}

/**
 * What a scenario's figures need besides the CPU total: the kernel's share of it (socket reads and
 * writes) and how the records were grouped into database batches.
 */
export interface IngestCounters {
  systemCpuS: number;
  batches: number;
  batchedRecords: number;
}

export function ingestCountersFromMetrics(text: string): IngestCounters | undefined {
  const systemCpuS = metricValue(text, 'process_cpu_system_seconds_total');
  const batches = metricValue(text, 'vigia_ingest_batch_records_count');
  const batchedRecords = metricValue(text, 'vigia_ingest_batch_records_sum');
  if (systemCpuS === undefined || batches === undefined || batchedRecords === undefined) return undefined;
  return { systemCpuS, batches, batchedRecords };
}

async function scrape(url: string, token: string): Promise<string | undefined> {
  const res = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
  return res.ok ? await res.text() : undefined;
}

/** A reader for the ingest at `url` (process `pid`): /metrics when it has the CPU counters, else /proc. */
export async function ingestCpuReader(url: string, adminToken: string, pid: number): Promise<CpuReader> {
  const first = await scrape(url, adminToken);
  if (first !== undefined && cpuSecondsFromMetrics(first) !== undefined) {
    return {
      source: 'metrics',
      async read() {
        const seconds = cpuSecondsFromMetrics((await scrape(url, adminToken)) ?? '');
        if (seconds === undefined) throw new Error('the CPU counters went missing from /metrics');
        return seconds;
      },
      counters: async () => ingestCountersFromMetrics((await scrape(url, adminToken)) ?? ''),
    };
  }
  return { source: 'proc', read: async () => requireProcessCpuSeconds(pid), counters: async () => undefined };
}
