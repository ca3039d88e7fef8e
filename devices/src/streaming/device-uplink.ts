import type { Logger, TelemetryInput } from '@vigia/core';
import { z } from 'zod';
import { HttpError, httpErrorFrom, joinUrl, requestJson } from '../api/http.js';
import type { TelemetryUplink, UplinkStats } from './telemetry-uplink.js';

const ingestResultSchema = z.looseObject({
  accepted: z.number().int().min(0),
  duplicates: z.number().int().min(0),
  rejected: z.array(z.looseObject({ index: z.number().int(), code: z.string(), message: z.string() })),
});

/** Records a device keeps while it cannot send (about 10 minutes at the default interval); older ones are dropped. */
export const MAX_BACKLOG = 300;
/** Records per request when catching up. */
export const MAX_BATCH = 100;
const BACKOFF_BASE_MS = 1_000;
const BACKOFF_MAX_MS = 60_000;
/** At most one token rotation per device in this time. */
const TOKEN_ROTATION_MIN_GAP_MS = 60_000;
/** Log every Nth consecutive failure of a device at warn level (the rest at debug). */
const LOG_EVERY_NTH_FAILURE = 30;

export type { UplinkStats } from './telemetry-uplink.js';

export interface DeviceUplinkOptions {
  ingestUrl: string;
  deviceId: string;
  identifier: string;
  token: string;
  log: Logger;
  /** Gets a fresh token when the server no longer accepts this one (401). */
  renewToken: () => Promise<string>;
  /** Real time, for backoff: independent of the simulation clock. */
  now?: () => number;
}

/**
 * A tracker's uplink: samples queue in a bounded backlog and go out in order, one request at a
 * time, with the device's own token. A failure never loses the backlog: the device waits (the
 * server's Retry-After, or exponential backoff with jitter) and sends the backlog later in one
 * batch; re-sent records that were in fact stored come back as duplicates, which is fine.
 */
export class DeviceUplink implements TelemetryUplink {
  readonly stats: UplinkStats = { sent: 0, accepted: 0, duplicates: 0, rejected: 0, failedRequests: 0, dropped: 0 };
  private backlog: TelemetryInput[] = [];
  private inFlight: Promise<void> | undefined;
  private notBeforeMs = 0;
  private failures = 0;
  private lastRotationMs = Number.NEGATIVE_INFINITY;
  private token: string;
  private readonly now: () => number;

  constructor(private readonly o: DeviceUplinkOptions) {
    this.token = o.token;
    this.now = o.now ?? Date.now;
  }

  get pending(): number {
    return this.backlog.length;
  }

  get busy(): boolean {
    return this.inFlight !== undefined;
  }

  enqueue(record: TelemetryInput): void {
    this.backlog.push(record);
    if (this.backlog.length > MAX_BACKLOG) {
      const drop = this.backlog.length - MAX_BACKLOG;
      this.backlog.splice(0, drop);
      this.stats.dropped += drop;
    }
  }

  /** Resolves when no request is in flight (it does not start one). */
  async whenIdle(): Promise<void> {
    await this.inFlight;
  }

  /** Nothing to release: each request opens and closes its own connection. */
  async close(): Promise<void> {
    await this.inFlight;
  }

  /** Send the backlog now unless a request is in flight or the device is backing off. */
  flush(signal?: AbortSignal): Promise<void> | undefined {
    if (this.inFlight || this.backlog.length === 0 || this.now() < this.notBeforeMs) return this.inFlight;
    this.inFlight = this.send(signal).finally(() => {
      this.inFlight = undefined;
    });
    return this.inFlight;
  }

  private async send(signal: AbortSignal | undefined): Promise<void> {
    const batch = this.backlog.slice(0, MAX_BATCH);
    const body = batch.length === 1 ? batch[0] : batch;
    try {
      const res = await requestJson(joinUrl(this.o.ingestUrl, '/v1/telemetry'), {
        method: 'POST',
        token: this.token,
        body,
        signal,
        timeoutMs: 10_000,
      });
      if (res.status === 200) {
        const result = ingestResultSchema.parse(res.body);
        this.backlog.splice(0, batch.length);
        this.succeeded(batch.length, result);
        return;
      }
      const error = httpErrorFrom(res, `Sending telemetry of ${this.o.identifier}`);
      if (res.status === 401) await this.renewToken(error);
      if (res.status === 400 && error.code !== 'UNKNOWN_DEVICE') {
        // The server refuses these records as they are: resending them would fail forever.
        this.backlog.splice(0, batch.length);
        this.stats.rejected += batch.length;
        this.o.log.error({ device: this.o.identifier, code: error.code, records: batch.length }, error.message);
        return;
      }
      this.failed(error);
    } catch (err) {
      if (signal?.aborted) return;
      this.failed(err instanceof HttpError ? err : new HttpError(0, 'CLIENT_ERROR', String(err)));
    }
  }

  private succeeded(count: number, result: z.infer<typeof ingestResultSchema>): void {
    this.stats.sent += count;
    this.stats.accepted += result.accepted;
    this.stats.duplicates += result.duplicates;
    this.stats.rejected += result.rejected.length;
    if (result.rejected.length > 0) {
      const codes = [...new Set(result.rejected.map((r) => r.code))];
      this.o.log.warn(
        { device: this.o.identifier, codes, rejected: result.rejected.length },
        'telemetry records rejected',
      );
    }
    if (this.failures > 0)
      this.o.log.info({ device: this.o.identifier, after: this.failures }, 'telemetry flowing again');
    this.failures = 0;
    this.notBeforeMs = 0;
  }

  private failed(error: HttpError): void {
    this.failures++;
    this.stats.failedRequests++;
    const backoff = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** Math.min(this.failures - 1, 10));
    const jittered = backoff * (0.5 + Math.random() / 2);
    const wait = error.retryAfterMs !== undefined ? Math.max(error.retryAfterMs, BACKOFF_BASE_MS) : jittered;
    this.notBeforeMs = this.now() + wait;
    const entry = {
      device: this.o.identifier,
      status: error.status,
      code: error.code,
      failures: this.failures,
      retryInMs: Math.round(wait),
      backlog: this.backlog.length,
    };
    if (this.failures === 1 || this.failures % LOG_EVERY_NTH_FAILURE === 0) this.o.log.warn(entry, error.message);
    else this.o.log.debug(entry, error.message);
  }

  private async renewToken(error: HttpError): Promise<void> {
    if (this.now() - this.lastRotationMs < TOKEN_ROTATION_MIN_GAP_MS) return;
    this.lastRotationMs = this.now();
    try {
      this.token = await this.o.renewToken();
      this.o.log.warn({ device: this.o.identifier, code: error.code }, 'device token refused; rotated it');
    } catch (err) {
      const code = err instanceof HttpError ? err.code : 'CLIENT_ERROR';
      this.o.log.error({ device: this.o.identifier, code }, `could not rotate the device token: ${String(err)}`);
    }
  }
}
