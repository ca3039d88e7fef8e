import type { Logger, TelemetryInput } from '@vigia/core';
import { parseRetryAfter } from '../../api/http.js';
import { type DeliveryAttempt, type DeliveryFailure, HttpUplink } from '../../streaming/backlog-uplink.js';
import type { OsmandProfile } from '../profiles/emulator-profile.js';
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
 * app would retry it forever, blocking every later position). The backlog, backoff and loop are
 * `BacklogUplink`'s.
 */
export class OsmandUplink extends HttpUplink {
  constructor(private readonly o: OsmandUplinkOptions) {
    super({ device: o.identifier, log: o.log, now: o.now });
  }

  protected async post(backlog: readonly TelemetryInput[], signal: AbortSignal | undefined): Promise<DeliveryAttempt> {
    const sample = backlog[0] as TelemetryInput;
    const url = `${this.o.baseUrl.replace(/\/+$/, '')}/?${sampleToQuery(this.o.identifier, sample, this.o.profile)}`;
    const timeout = AbortSignal.timeout(this.o.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    const res = await fetch(url, { method: 'POST', signal: signal ? AbortSignal.any([signal, timeout]) : timeout });
    const retryAfter = res.headers.get('retry-after');
    const text = await res.text();
    const code = /^([A-Z_]+):/.exec(text)?.[1] ?? `HTTP_${res.status}`;
    if (res.status === 200) {
      this.acknowledge([sample]);
      return { outcome: 'acknowledged' };
    }
    if (res.status === 400 && PERMANENT.test(code)) {
      this.refuse([sample], code, `OsmAnd position refused: ${text.trim()}`);
      return { outcome: 'refused' };
    }
    return {
      outcome: 'failed',
      code,
      message: `OsmAnd position not accepted: ${text.trim() || `HTTP ${res.status}`}`,
      details: { status: res.status },
      retryAfterMs: parseRetryAfter(retryAfter),
    };
  }

  /** Only the request itself throws: the server was not reached or did not answer in time. */
  protected failure(err: unknown): DeliveryFailure {
    return { code: 'NETWORK_ERROR', message: `OsmAnd position not delivered: ${(err as Error).message}` };
  }
}
