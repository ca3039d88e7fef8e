import { Counter, Histogram, Registry } from 'prom-client';
import { processMetrics } from './process-metrics.js';

/** Request latencies: a single-record request is answered in a few milliseconds, a big batch in seconds. */
const REQUEST_SECONDS_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** One transaction of up to INGEST_BATCH_MAX_RECORDS records. */
const BATCH_SECONDS_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
const BATCH_RECORDS_BUCKETS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000];
/** The engine takes a few µs per sample (issue 12 aims at under 7 µs): 1 µs to 1 ms. */
const RULE_SECONDS_PER_SAMPLE_BUCKETS = [1e-6, 2e-6, 5e-6, 1e-5, 2e-5, 5e-5, 1e-4, 2e-4, 5e-4, 1e-3];

/** A sample's age when its transaction commits: tens of ms when the ingest keeps up, a minute when it does not. */
const SAMPLE_LAG_SECONDS_BUCKETS = [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 3, 5, 10, 20, 30, 60, 120, 300];

type StatusLabels = { route: string; status: string };

/**
 * The ingest service's metrics, rendered by `GET /metrics` (the names are documented in
 * ingest/README.md#metrics). One instance, and one prom-client `Registry`, per ingest service:
 * tests run several systems in one process, and each counts only its own traffic; `close()`
 * empties it. The gateways' counters (`GatewayMetrics`) are registered in the same registry;
 * the process-wide default metrics come from `processMetrics()` and are appended to the text.
 *
 * Every method is called once per request, written batch or judged batch, never per record
 * (except for rejected records), and reuses its label objects: the hot path allocates nothing.
 */
export class IngestMetrics {
  readonly registry = new Registry();
  readonly contentType = Registry.PROMETHEUS_CONTENT_TYPE;
  private readonly accepted: Counter;
  private readonly duplicates: Counter;
  private readonly rejected: Counter<'reason'>;
  /** Label objects per rejection code (a small fixed set), lower-cased once. */
  private readonly reasonLabels = new Map<string, { reason: string }>();
  private readonly requestSeconds: Histogram<'route' | 'status'>;
  private readonly batchSeconds: Histogram;
  private readonly batchRecords: Histogram;
  private readonly ruleSeconds: Counter;
  private readonly ruleSamples: Counter;
  private readonly ruleSecondsPerSample: Histogram;
  private readonly sampleLag: Histogram;

  constructor() {
    const registers = [this.registry];
    this.accepted = new Counter({
      name: 'vigia_http_telemetry_records_accepted_total',
      help: 'Records of POST /v1/telemetry durably stored (the responses\' "accepted").',
      registers,
    });
    this.duplicates = new Counter({
      name: 'vigia_http_telemetry_records_duplicate_total',
      help: 'Records of POST /v1/telemetry already stored (same device and time): re-sends.',
      registers,
    });
    this.rejected = new Counter({
      name: 'vigia_http_telemetry_records_rejected_total',
      help: 'Records of POST /v1/telemetry refused and not stored, by the code of the response (lower case).',
      labelNames: ['reason'],
      registers,
    });
    this.requestSeconds = new Histogram({
      name: 'vigia_ingest_http_request_duration_seconds',
      help: 'Time from the request reaching the server to the response being sent, by route and HTTP status.',
      labelNames: ['route', 'status'],
      buckets: REQUEST_SECONDS_BUCKETS,
      registers,
    });
    this.batchSeconds = new Histogram({
      name: 'vigia_ingest_batch_write_duration_seconds',
      help: 'Time to store one batch of telemetry in the database (one transaction, or several when a refused record is isolated).',
      buckets: BATCH_SECONDS_BUCKETS,
      registers,
    });
    this.batchRecords = new Histogram({
      name: 'vigia_ingest_batch_records',
      help: 'Records per batch stored in the database, from every source (HTTP, gateways, spool replay).',
      buckets: BATCH_RECORDS_BUCKETS,
      registers,
    });
    this.ruleSeconds = new Counter({
      name: 'vigia_rule_evaluation_seconds_total',
      help: 'Time the rule engine spent judging stored samples (the engine alone, not storing violations).',
      registers,
    });
    this.ruleSamples = new Counter({
      name: 'vigia_rule_samples_total',
      help: 'Stored samples judged by the rule engine.',
      registers,
    });
    this.ruleSecondsPerSample = new Histogram({
      name: 'vigia_rule_evaluation_seconds_per_sample',
      help: 'Rule engine time per sample, one observation per judged batch (its time divided by its samples).',
      buckets: RULE_SECONDS_PER_SAMPLE_BUCKETS,
      registers,
    });
    this.sampleLag = new Histogram({
      name: 'vigia_ingest_sample_lag_seconds',
      help: 'Age of a stored sample when its transaction committed (commit time minus the sample timestamp)',
      buckets: SAMPLE_LAG_SECONDS_BUCKETS,
      registers,
    });
    // Series without labels exist from the start; the usual rejection codes too, so a rate()
    // over them works from the first scrape.
    for (const code of ['VALIDATION_FAILED', 'UNKNOWN_DEVICE']) this.rejected.inc(this.reasonOf(code), 0);
    processMetrics();
  }

  /** One answered `POST /v1/telemetry`: what it stored, what it already had, and what it refused. */
  telemetryRecords(accepted: number, duplicates: number, rejected: readonly { code: string }[]): void {
    if (accepted > 0) this.accepted.inc(accepted);
    if (duplicates > 0) this.duplicates.inc(duplicates);
    for (const r of rejected) this.rejected.inc(this.reasonOf(r.code));
  }

  /**
   * A recorder of one route's latencies, for its `onResponse` hook: `(status, seconds)`. The label
   * objects are made once per status code seen.
   */
  routeTimer(route: string): (status: number, seconds: number) => void {
    const byStatus = new Map<number, StatusLabels>();
    return (status, seconds) => {
      let labels = byStatus.get(status);
      if (!labels) {
        labels = { route, status: String(status) };
        byStatus.set(status, labels);
      }
      this.requestSeconds.observe(labels, seconds);
    };
  }

  /** One batch of `records` stored in `seconds`. */
  batchWritten(records: number, seconds: number): void {
    this.batchSeconds.observe(seconds);
    this.batchRecords.observe(records);
  }

  /**
   * Samples just committed: each one's lag from its own timestamp (the device's clock) to now.
   * Per record, but only a bucket search each; a device clock ahead of the server's counts as 0.
   */
  samplesCommitted(records: readonly { ts: Date }[], nowMs: number): void {
    for (const r of records) this.sampleLag.observe(Math.max(0, nowMs - r.ts.getTime()) / 1000);
  }

  /** The rule engine judged `samples` stored samples in `seconds`. */
  rulesEvaluated(samples: number, seconds: number): void {
    if (samples === 0) return;
    this.ruleSeconds.inc(seconds);
    this.ruleSamples.inc(samples);
    this.ruleSecondsPerSample.observe(seconds / samples);
  }

  /** Everything for `GET /metrics`: this service's metrics, then the process's. */
  async exposition(): Promise<string> {
    const [own, process] = await Promise.all([this.registry.metrics(), processMetrics().metrics()]);
    return `${own}\n${process}`;
  }

  /** Drops this service's metrics (the registry holds no timer or observer of its own). */
  close(): void {
    this.registry.clear();
  }

  private reasonOf(code: string): { reason: string } {
    let labels = this.reasonLabels.get(code);
    if (!labels) {
      labels = { reason: code.toLowerCase() };
      this.reasonLabels.set(code, labels);
    }
    return labels;
  }
}
