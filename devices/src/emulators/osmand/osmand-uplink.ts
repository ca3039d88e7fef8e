import type { Logger, TelemetryInput } from '@vigia/core';
import { parseRetryAfter } from '../../api/http.js';
import { MAX_BACKLOG } from '../../streaming/device-uplink.js';
import type { TelemetryUplink, UplinkStats } from '../../streaming/telemetry-uplink.js';
import type { OsmandProfile } from '../profiles/emulator-profile.js';
import { RetryPacer } from '../retry-pacer.js';
import { sampleToQuery } from './sample-to-query.js';

export interface OsmandUplinkOptions {
  /** `http://host:port` of the OsmAnd gateway. */
  baseUrl: string;
  identifier: string;
  profile: OsmandProfile;
  log: Logger;
  timeoutMs?: number;
  now?: () => number;
}

const DEFAULT_TIMEOUT_MS = 15_000;
/** Codes after which sending the same position again cannot help. */
const PERMANENT = /^(INVALID_FIX|FUTURE_TIMESTAMP|NO_POSITION|INVALID_REQUEST|MISSING_DEVICE_ID)$/;

/**
 * An emulated phone running Traccar Client: one POST per position with the parameters in the URL
 * and an empty body, in order, the next only after the server answered 200 for this one.
 * Anything but 200 keeps the position and retries it later, as the app does — except a 400 the
 * server explains as a position that can never be accepted, which is counted and dropped (the
 * app would retry it forever, blocking every later position).
 */
export class OsmandUplink implements TelemetryUplink {
  readonly stats: UplinkStats = { sent: 0, accepted: 0, duplicates: 0, rejected: 0, failedRequests: 0, dropped: 0 };
  private backlog: TelemetryInput[] = [];
  private inFlight: Promise<void> | undefined;
  private readonly pacer: RetryPacer;

  constructor(private readonly o: OsmandUplinkOptions) {
    this.pacer = new RetryPacer(o.identifier, o.log, o.now);
  }

  get pending(): number {
    return this.backlog.length;
  }

  enqueue(record: TelemetryInput): void {
    this.backlog.push(record);
    if (this.backlog.length > MAX_BACKLOG) {
      const drop = this.backlog.length - MAX_BACKLOG;
      this.backlog.splice(0, drop);
      this.stats.dropped += drop;
    }
  }

  async whenIdle(): Promise<void> {
    await this.inFlight;
  }

  async close(): Promise<void> {
    await this.inFlight;
  }

  flush(signal?: AbortSignal): Promise<void> | undefined {
    if (this.inFlight || this.backlog.length === 0 || !this.pacer.ready) return this.inFlight;
    this.inFlight = this.deliver(signal).finally(() => {
      this.inFlight = undefined;
    });
    return this.inFlight;
  }

  private async deliver(signal: AbortSignal | undefined): Promise<void> {
    while (this.backlog.length > 0 && !signal?.aborted) {
      const sample = this.backlog[0] as TelemetryInput;
      const url = `${this.o.baseUrl.replace(/\/+$/, '')}/?${sampleToQuery(this.o.identifier, sample, this.o.profile)}`;
      const timeout = AbortSignal.timeout(this.o.timeoutMs ?? DEFAULT_TIMEOUT_MS);
      let status: number;
      let text: string;
      let retryAfter: string | null = null;
      try {
        const res = await fetch(url, { method: 'POST', signal: signal ? AbortSignal.any([signal, timeout]) : timeout });
        status = res.status;
        retryAfter = res.headers.get('retry-after');
        text = await res.text();
      } catch (err) {
        if (signal?.aborted) return;
        this.stats.failedRequests++;
        this.pacer.failed('NETWORK_ERROR', `OsmAnd position not delivered: ${(err as Error).message}`);
        return;
      }
      const code = /^([A-Z_]+):/.exec(text)?.[1] ?? `HTTP_${status}`;
      if (status === 200) {
        this.backlog.shift();
        this.stats.sent++;
        this.stats.accepted++;
        this.pacer.succeeded();
      } else if (status === 400 && PERMANENT.test(code)) {
        this.backlog.shift();
        this.stats.rejected++;
        this.o.log.error({ device: this.o.identifier, code }, `OsmAnd position refused: ${text.trim()}`);
      } else {
        this.stats.failedRequests++;
        this.pacer.failed(
          code,
          `OsmAnd position not accepted: ${text.trim() || `HTTP ${status}`}`,
          { status },
          parseRetryAfter(retryAfter),
        );
        return;
      }
    }
  }
}
