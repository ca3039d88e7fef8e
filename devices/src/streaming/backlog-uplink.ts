import type { Logger, TelemetryInput } from '@vigia/core';
import { RetryPacer } from './retry-pacer.js';
import type { TelemetryUplink, UplinkStats } from './telemetry-uplink.js';

/** Records a device keeps while it cannot send (about 10 minutes at the default interval); older ones are dropped. */
export const MAX_BACKLOG = 300;

/** What an uplink keeps open between deliveries (a TCP connection); nothing for HTTP (`HttpUplink`). */
export interface UplinkConnection {
  readonly open: boolean;
  close(): void;
}

/** HTTP uplinks: each request opens and closes its own connection, so there is nothing to keep. */
const STATELESS: UplinkConnection = { open: true, close: () => {} };

/** Why a delivery attempt failed: logged, and the device backs off (the server's Retry-After when it gave one). */
export interface DeliveryFailure {
  code: string;
  message: string;
  details?: Record<string, unknown>;
  retryAfterMs?: number;
}

/**
 * How one attempt ended. `acknowledged`: the server took what was sent (reported through
 * `acknowledge`), so the device is healthy again. `refused`: the server refused samples for good
 * (reported through `refuse`), the device goes on with the next. `failed`: nothing more until the
 * backoff has passed; what was not acknowledged stays in the backlog.
 */
export type DeliveryAttempt =
  | { outcome: 'acknowledged' }
  | { outcome: 'refused' }
  | ({ outcome: 'failed' } & DeliveryFailure);

export interface BacklogUplinkOptions {
  /** How the device names itself in the log. */
  device: string;
  log: Logger;
  /** Real time, for backoff: independent of the simulation clock. */
  now?: () => number;
  /** Stop after this many attempts per flush (the native device sends one request per tick). */
  attemptsPerFlush?: number;
  /** Called with each sample the server acknowledged, once (tests keep the list of acknowledged positions). */
  onAcknowledged?: (sample: TelemetryInput) => void;
}

/**
 * The one delivery loop of every simulated device, whatever its protocol: samples queue in a
 * bounded backlog and leave in order; a sample leaves the backlog only once the server has
 * acknowledged it (or refused it for good); any failure drops the connection and the device backs
 * off (`RetryPacer`), then sends every unacknowledged sample again, on a new connection. A
 * protocol supplies only how to connect, how to send from the head of the backlog and recognise
 * the acknowledgement, and how to name a failure.
 */
export abstract class BacklogUplink<C extends UplinkConnection> implements TelemetryUplink {
  readonly stats: UplinkStats = { sent: 0, accepted: 0, duplicates: 0, rejected: 0, failedRequests: 0, dropped: 0 };
  private readonly queue: TelemetryInput[] = [];
  private connection: C | undefined;
  private inFlight: Promise<void> | undefined;
  private readonly pacer: RetryPacer;

  constructor(private readonly delivery: BacklogUplinkOptions) {
    this.pacer = new RetryPacer(delivery.device, delivery.log, delivery.now);
  }

  /** Opens a new connection (and introduces the device on it); throws if the server refuses it. */
  protected abstract connect(signal: AbortSignal | undefined): Promise<C>;
  /** Sends from the head of `backlog` over `connection` and reports what the server acknowledged or refused. */
  protected abstract send(
    connection: C,
    backlog: readonly TelemetryInput[],
    signal: AbortSignal | undefined,
  ): Promise<DeliveryAttempt>;
  /** Names an error thrown by `connect` or `send`. */
  protected abstract failure(err: unknown): DeliveryFailure;

  get pending(): number {
    return this.queue.length;
  }

  get busy(): boolean {
    return this.inFlight !== undefined;
  }

  enqueue(record: TelemetryInput): void {
    this.queue.push(record);
    if (this.queue.length > MAX_BACKLOG) {
      const drop = this.queue.length - MAX_BACKLOG;
      this.queue.splice(0, drop);
      this.stats.dropped += drop;
    }
  }

  /** Resolves when no delivery is in flight (it does not start one). */
  async whenIdle(): Promise<void> {
    await this.inFlight;
  }

  async close(): Promise<void> {
    await this.inFlight;
    this.connection?.close();
    this.connection = undefined;
  }

  /** Delivers the backlog now unless a delivery is in flight or the device is backing off. */
  flush(signal?: AbortSignal): Promise<void> | undefined {
    if (this.inFlight || this.queue.length === 0 || !this.pacer.ready) return this.inFlight;
    this.inFlight = this.deliver(signal).finally(() => {
      this.inFlight = undefined;
    });
    return this.inFlight;
  }

  /**
   * The server has these samples: they leave the backlog (wherever they are in it: acknowledgements
   * may come out of order). `counts` splits them as the server did; by default all were accepted.
   */
  protected acknowledge(
    samples: readonly TelemetryInput[],
    counts: { accepted: number; duplicates: number; rejected: number } = {
      accepted: samples.length,
      duplicates: 0,
      rejected: 0,
    },
  ): void {
    for (const sample of samples) {
      this.remove(sample);
      this.delivery.onAcknowledged?.(sample);
    }
    this.stats.sent += samples.length;
    this.stats.accepted += counts.accepted;
    this.stats.duplicates += counts.duplicates;
    this.stats.rejected += counts.rejected;
  }

  /** The server refuses these samples as they are: resending them would fail forever, so they leave the backlog. */
  protected refuse(samples: readonly TelemetryInput[], code: string, message: string): void {
    for (const sample of samples) this.remove(sample);
    this.stats.rejected += samples.length;
    this.delivery.log.error({ device: this.delivery.device, code, records: samples.length }, message);
  }

  private remove(sample: TelemetryInput): void {
    const at = this.queue[0] === sample ? 0 : this.queue.indexOf(sample);
    if (at >= 0) this.queue.splice(at, 1);
  }

  private async deliver(signal: AbortSignal | undefined): Promise<void> {
    let attempts = 0;
    try {
      while (this.queue.length > 0 && !signal?.aborted) {
        if (!this.connection?.open) {
          this.dropConnection();
          this.connection = await this.connect(signal);
        }
        const attempt = await this.send(this.connection, this.queue, signal);
        if (attempt.outcome === 'failed') {
          this.dropConnection();
          this.failed(attempt);
          return;
        }
        if (attempt.outcome === 'acknowledged') this.pacer.succeeded();
        if (++attempts === this.delivery.attemptsPerFlush) return;
      }
    } catch (err) {
      // What was not acknowledged stays in the backlog: it goes again, on a new connection.
      this.dropConnection();
      if (signal?.aborted) return;
      this.failed(this.failure(err));
    }
  }

  private dropConnection(): void {
    this.connection?.close();
    this.connection = undefined;
  }

  private failed(failure: DeliveryFailure): void {
    this.stats.failedRequests++;
    this.pacer.failed(
      failure.code,
      failure.message,
      { ...failure.details, backlog: this.queue.length },
      failure.retryAfterMs,
    );
  }
}

/**
 * An uplink over HTTP (native, OsmAnd): each request opens and closes its own connection, so
 * there is none to keep; a protocol supplies only `post`.
 */
export abstract class HttpUplink extends BacklogUplink<UplinkConnection> {
  protected async connect(): Promise<UplinkConnection> {
    return STATELESS;
  }

  protected send(
    _connection: UplinkConnection,
    backlog: readonly TelemetryInput[],
    signal: AbortSignal | undefined,
  ): Promise<DeliveryAttempt> {
    return this.post(backlog, signal);
  }

  /** Sends one request from the head of `backlog` and reports what the server acknowledged or refused. */
  protected abstract post(
    backlog: readonly TelemetryInput[],
    signal: AbortSignal | undefined,
  ): Promise<DeliveryAttempt>;
}
