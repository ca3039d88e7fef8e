import { describe, expect, it } from 'vitest';
import { formatTable } from '../src/bench/bench-table.js';
import { httpLoadMessageSchema, parseHttpLoadArgs } from '../src/bench/http-load-protocol.js';
import { cpuSecondsFromMetrics, ingestCountersFromMetrics } from '../src/bench/ingest-cpu.js';
import { IngestMetrics } from '../src/metrics/ingest-metrics.js';

/**
 * The ingest benchmark's plumbing that can go wrong without a benchmark noticing: the load
 * generator's arguments (a child process's boundary) and reading the ingest's CPU from its
 * /metrics. Pure functions: milliseconds, no server.
 */

const valid = {
  url: 'http://127.0.0.1:4100',
  records: 2000,
  batchSize: 1,
  devices: 200,
  dayStartMs: 1_780_000_000_000,
  connections: 32,
  auth: { kind: 'device', tokenPrefix: 'bench-device-token-' },
};

describe('the HTTP load generator arguments', () => {
  it('parses one JSON document, with the request timeout defaulted', () => {
    expect(parseHttpLoadArgs([JSON.stringify(valid)])).toEqual({ ...valid, timeoutS: 120 });
  });

  it('takes a gateway token for batches', () => {
    const args = { ...valid, batchSize: 1000, auth: { kind: 'gateway', token: 'bench-admin-token-0123456789' } };
    expect(parseHttpLoadArgs([JSON.stringify(args)]).batchSize).toBe(1000);
  });

  it.each([
    ['no argument', []],
    ['two arguments', [JSON.stringify(valid), '{}']],
    ['text that is not JSON', ['{records: 2']],
    ['an unknown field', [JSON.stringify({ ...valid, pipelining: 10 })]],
    ['a url that is not HTTP', [JSON.stringify({ ...valid, url: 'ftp://127.0.0.1' })]],
    ['no records', [JSON.stringify({ ...valid, records: 0 })]],
    ['a device token for a batch', [JSON.stringify({ ...valid, batchSize: 1000, records: 2000 })]],
    [
      'records that are not whole batches',
      [JSON.stringify({ ...valid, batchSize: 1000, records: 1500, auth: { kind: 'gateway', token: 'x'.repeat(16) } })],
    ],
  ])('refuses %s', (_, argv) => {
    expect(() => parseHttpLoadArgs(argv)).toThrow();
  });

  it('reads its report, and refuses one with a missing figure', () => {
    const report = {
      type: 'report',
      requestsSent: 2000,
      ok: 2000,
      notOk: 0,
      errors: 0,
      timeouts: 0,
      accepted: 2000,
      seconds: 0.8,
      latencyMs: { p50: 9, p99: 31 },
    };
    expect(httpLoadMessageSchema.parse(report)).toEqual(report);
    expect(httpLoadMessageSchema.safeParse({ ...report, accepted: undefined }).success).toBe(false);
  });
});

describe('the ingest CPU from /metrics', () => {
  it("adds prom-client's user and system CPU seconds", () => {
    const text = [
      '# HELP process_cpu_user_seconds_total Total user CPU time spent in seconds.',
      '# TYPE process_cpu_user_seconds_total counter',
      'process_cpu_user_seconds_total 12.5',
      'process_cpu_system_seconds_total{instance="a"} 2.25',
      'process_cpu_seconds_total 14.75',
    ].join('\n');
    expect(cpuSecondsFromMetrics(text)).toBe(14.75);
  });

  it('is undefined when a counter is missing, so the bench falls back to /proc', () => {
    expect(cpuSecondsFromMetrics('vigia_gateway_records_stored_total{protocol="gt06"} 3')).toBeUndefined();
    expect(cpuSecondsFromMetrics('process_cpu_user_seconds_total 1')).toBeUndefined();
  });
});

describe("the ingest's batch and kernel counters from /metrics", () => {
  it('reads the batches and their records from the histogram the ingest renders, and its system CPU', async () => {
    const metrics = new IngestMetrics();
    try {
      metrics.batchWritten(17, 0.004);
      metrics.batchWritten(3, 0.002);
      const counters = ingestCountersFromMetrics(await metrics.exposition());
      // prom-client counts the process's CPU from its first scrape: a number, zero at first.
      expect(counters).toEqual({ batches: 2, batchedRecords: 20, systemCpuS: expect.any(Number) });
    } finally {
      metrics.close();
    }
  });

  it('is undefined for an exposition without them (the HTTP floor serves only its CPU)', () => {
    expect(
      ingestCountersFromMetrics('process_cpu_user_seconds_total 1\nprocess_cpu_system_seconds_total 2'),
    ).toBeUndefined();
  });
});

describe("the bench's table", () => {
  it('gives a storage path its share of COPY and its lost records, and a reference row (the HTTP floor) neither', () => {
    const measurement = { sent: 1000, seconds: 1, totalCpuS: 0.1, loadCpuS: 0.1, windowS: 1 };
    const table = formatTable(
      [
        { scenario: 'ingest', stored: 990, measurement },
        { scenario: 'floor', stored: 1000, measurement, reference: true },
      ],
      4000,
    );
    const cells = (name: string) =>
      table
        .split('\n')
        .find((line) => line.startsWith(name))
        ?.split('|')
        .map((c) => c.trim());
    // records/s 990 of COPY's 4 000; 10 records missing.
    expect(cells('ingest')?.[3]).toBe('25 %');
    expect(cells('ingest')?.[8]).toBe('10');
    expect(cells('floor')?.[3]).toBe('–');
    expect(cells('floor')?.[8]).toBe('–');
    // Its CPU per request is still there: what it is for.
    expect(cells('floor')?.[4]).toBe('100');
  });
});
