import type { Logger, TelemetryInput } from '@vigia/core';
import { z } from 'zod';
import { HttpError, httpErrorFrom, joinUrl, requestJson } from '../api/http.js';
import { type DeliveryAttempt, type DeliveryFailure, HttpUplink } from './backlog-uplink.js';

const ingestResultSchema = z.looseObject({
  accepted: z.number().int().min(0),
  duplicates: z.number().int().min(0),
  rejected: z.array(z.looseObject({ index: z.number().int(), code: z.string(), message: z.string() })),
});

export { MAX_BACKLOG } from './backlog-uplink.js';
/** Records per request when catching up. */
export const MAX_BATCH = 100;
/** At most one token rotation per device in this time. */
const TOKEN_ROTATION_MIN_GAP_MS = 60_000;

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
 * A tracker's uplink: samples queue in a bounded backlog and go out in order, one request per
 * flush, with the device's own token. A failure never loses the backlog: the device waits (the
 * server's Retry-After, or exponential backoff with jitter) and sends the backlog later in one
 * batch; re-sent records that were in fact stored come back as duplicates, which is fine. The
 * backlog, backoff and loop are `BacklogUplink`'s.
 */
export class DeviceUplink extends HttpUplink {
  private lastRotationMs = Number.NEGATIVE_INFINITY;
  private token: string;
  private readonly now: () => number;

  constructor(private readonly o: DeviceUplinkOptions) {
    const now = o.now ?? Date.now;
    super({ device: o.identifier, log: o.log, now, attemptsPerFlush: 1 });
    this.token = o.token;
    this.now = now;
  }

  protected async post(backlog: readonly TelemetryInput[], signal: AbortSignal | undefined): Promise<DeliveryAttempt> {
    const batch = backlog.slice(0, MAX_BATCH);
    const body = batch.length === 1 ? batch[0] : batch;
    const res = await requestJson(joinUrl(this.o.ingestUrl, '/v1/telemetry'), {
      method: 'POST',
      token: this.token,
      body,
      signal,
      timeoutMs: 10_000,
    });
    if (res.status === 200) {
      const result = ingestResultSchema.parse(res.body);
      this.acknowledge(batch, {
        accepted: result.accepted,
        duplicates: result.duplicates,
        rejected: result.rejected.length,
      });
      if (result.rejected.length > 0) {
        const codes = [...new Set(result.rejected.map((r) => r.code))];
        this.o.log.warn(
          { device: this.o.identifier, codes, rejected: result.rejected.length },
          'telemetry records rejected',
        );
      }
      return { outcome: 'acknowledged' };
    }
    const error = httpErrorFrom(res, `Sending telemetry of ${this.o.identifier}`);
    if (res.status === 401) await this.renewToken(error);
    if (res.status === 400 && error.code !== 'UNKNOWN_DEVICE') {
      // The server refuses these records as they are: resending them would fail forever.
      this.refuse(batch, error.code, error.message);
      return { outcome: 'refused' };
    }
    return { outcome: 'failed', ...this.failure(error) };
  }

  protected failure(err: unknown): DeliveryFailure {
    const error = err instanceof HttpError ? err : new HttpError(0, 'CLIENT_ERROR', String(err));
    return {
      code: error.code,
      message: error.message,
      details: { status: error.status },
      retryAfterMs: error.retryAfterMs,
    };
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
