import { IngestMetrics } from '@vigia/ingest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, registerVehicle, startTestSystem, type TestSystem, waitFor } from './support.js';

/**
 * `GET /metrics` of a running system counts the native HTTP path (`POST /v1/telemetry`) like the
 * gateways count theirs, times requests, batches and the rule engine, and carries the process's
 * CPU counters that the ingest benchmark divides by the accepted records. Another ingest
 * service's metrics in the same process count apart, and closing them leaves the system's whole.
 */

/** One scrape: series → value, the labels of a series sorted so their order does not matter. */
type Scrape = Map<string, number>;

function seriesKey(name: string, labels: Record<string, string> = {}): string {
  const parts = Object.entries(labels)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k}=${JSON.stringify(v)}`);
  return `${name}{${parts.join(',')}}`;
}

function parse(text: string): Scrape {
  const scrape: Scrape = new Map();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m?.[1] || m[3] === undefined) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, k, v] of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) if (k) labels[k] = v ?? '';
    scrape.set(seriesKey(m[1], labels), Number(m[3]));
  }
  return scrape;
}

async function scrape(sys: TestSystem): Promise<Scrape> {
  const res = await fetch(`${sys.url}/metrics`, { headers: { authorization: `Bearer ${sys.adminToken}` } });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
  return parse(await res.text());
}

const at = (s: Scrape, name: string, labels?: Record<string, string>) => s.get(seriesKey(name, labels));
/** How much a series rose between two scrapes (a series absent before counts from 0). */
const rise = (before: Scrape, after: Scrape, name: string, labels?: Record<string, string>) =>
  (at(after, name, labels) ?? Number.NaN) - (at(before, name, labels) ?? 0);

const ACCEPTED = 'vigia_http_telemetry_records_accepted_total';
const TELEMETRY_200 = { route: '/v1/telemetry', status: '200' };

describe('GET /metrics counts the HTTP ingest path', () => {
  let sys: TestSystem;
  let dev: Awaited<ReturnType<typeof registerVehicle>>;
  const t0 = Math.floor(Date.now() / 1000) * 1000 - 600_000;
  const sample = (i: number, deviceId = dev.identifier) => ({
    deviceId,
    ts: new Date(t0 + i * 10_000).toISOString(),
    lat: -15.7942 + i * 0.001,
    lon: -47.8822,
    speedKmh: 30,
  });

  beforeAll(async () => {
    sys = await startTestSystem('pglite');
    dev = await registerVehicle(sys);
  });
  afterAll(async () => {
    await sys?.stop();
  });

  it('counts accepted, duplicate and rejected records, and times requests, batches and rules', async () => {
    const before = await scrape(sys);
    expect(at(before, ACCEPTED)).toBe(0);

    const one = await api(sys, 'POST', '/v1/telemetry', sample(0), dev.token);
    expect(one.body).toEqual({ accepted: 1, duplicates: 0, rejected: [] });
    // A batch: two new records, a re-send, an unknown device and an impossible latitude.
    const batch = await api<{ rejected: { code: string }[] }>(sys, 'POST', '/v1/telemetry', [
      sample(1),
      sample(2),
      sample(0),
      sample(3, 'IMEI-NOT-REGISTERED'),
      { ...sample(4), lat: 91 },
    ]);
    expect(batch.status).toBe(200);
    expect(batch.body.rejected.map((r) => r.code)).toEqual(['UNKNOWN_DEVICE', 'VALIDATION_FAILED']);
    // Refused before its body is read: timed all the same.
    expect((await api(sys, 'POST', '/v1/telemetry', sample(5), null)).status).toBe(401);

    // The rules judge after the commit: wait until they have seen the three stored samples.
    const after = await waitFor('the rules to judge the stored samples', async () => {
      const s = await scrape(sys);
      return rise(before, s, 'vigia_rule_samples_total') >= 3 ? s : undefined;
    });
    expect(rise(before, after, ACCEPTED)).toBe(3);
    expect(rise(before, after, 'vigia_http_telemetry_records_duplicate_total')).toBe(1);
    const rejected = 'vigia_http_telemetry_records_rejected_total';
    expect(rise(before, after, rejected, { reason: 'unknown_device' })).toBe(1);
    expect(rise(before, after, rejected, { reason: 'validation_failed' })).toBe(1);
    expect(at(after, rejected, { reason: 'future_timestamp' })).toBeUndefined();

    const latency = 'vigia_ingest_http_request_duration_seconds';
    expect(rise(before, after, `${latency}_count`, TELEMETRY_200)).toBe(2);
    expect(rise(before, after, `${latency}_count`, { route: '/v1/telemetry', status: '401' })).toBe(1);
    expect(rise(before, after, `${latency}_sum`, TELEMETRY_200)).toBeGreaterThan(0);
    expect(at(after, `${latency}_bucket`, { ...TELEMETRY_200, le: '+Inf' })).toBe(2);

    // Three records stored, in one or two batches; the re-send is written too, as a duplicate.
    const batches = rise(before, after, 'vigia_ingest_batch_write_duration_seconds_count');
    expect(batches).toBeGreaterThanOrEqual(1);
    expect(rise(before, after, 'vigia_ingest_batch_records_count')).toBe(batches);
    expect(rise(before, after, 'vigia_ingest_batch_records_sum')).toBe(4);
    expect(rise(before, after, 'vigia_ingest_batch_write_duration_seconds_sum')).toBeGreaterThan(0);

    // Each stored sample's age at its commit: the three accepted ones (not the re-send), stamped
    // 600 to 580 s before the test began, so each is over 570 s old and none in a bucket under 300 s.
    const lag = 'vigia_ingest_sample_lag_seconds';
    expect(rise(before, after, `${lag}_count`)).toBe(3);
    expect(rise(before, after, `${lag}_sum`)).toBeGreaterThan(3 * 570);
    expect(rise(before, after, `${lag}_bucket`, { le: '300' })).toBe(0);
    expect(rise(before, after, `${lag}_bucket`, { le: '+Inf' })).toBe(3);

    expect(rise(before, after, 'vigia_rule_samples_total')).toBe(3);
    expect(rise(before, after, 'vigia_rule_evaluation_seconds_total')).toBeGreaterThan(0);
    expect(rise(before, after, 'vigia_rule_evaluation_seconds_per_sample_count')).toBeGreaterThanOrEqual(1);

    // The process's own CPU (what the ingest benchmark reads), event-loop lag and the like.
    for (const name of ['process_cpu_user_seconds_total', 'process_cpu_system_seconds_total']) {
      expect(at(after, name), name).toBeGreaterThan(0);
      expect(at(after, name) ?? 0, name).toBeGreaterThanOrEqual(at(before, name) ?? Number.POSITIVE_INFINITY);
    }
    expect(at(after, 'nodejs_eventloop_lag_p99_seconds')).toBeGreaterThanOrEqual(0);
    expect(at(after, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    // The gateways' counters are in the same exposition.
    expect(at(after, 'vigia_gateway_records_stored_total', { protocol: 'teltonika', transport: 'tcp' })).toBe(0);
  });

  it('keeps each service to its own counts, and closing one leaves the others whole', async () => {
    const mine = await scrape(sys);
    expect(at(mine, ACCEPTED)).toBeGreaterThanOrEqual(3);
    // What a second system in this process makes for itself: its own registry, empty.
    const other = new IngestMetrics();
    other.telemetryRecords(5, 0, [{ code: 'UNKNOWN_DEVICE' }]);
    const theirs = parse(await other.exposition());
    expect(at(theirs, ACCEPTED)).toBe(5);
    expect(at(theirs, 'vigia_http_telemetry_records_rejected_total', { reason: 'unknown_device' })).toBe(1);
    expect(at(theirs, 'vigia_ingest_http_request_duration_seconds_count', TELEMETRY_200)).toBeUndefined();
    expect(at(theirs, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);

    other.close();
    expect(parse(await other.exposition()).has(seriesKey(ACCEPTED))).toBe(false);
    const still = await scrape(sys);
    expect(at(still, ACCEPTED)).toBe(at(mine, ACCEPTED));
    expect(at(still, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
    // Device tokens send telemetry; they do not read the metrics.
    expect((await api(sys, 'GET', '/metrics', undefined, dev.token)).status).toBe(403);
  });
});
