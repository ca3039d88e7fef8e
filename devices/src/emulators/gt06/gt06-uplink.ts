import type { Logger, TelemetryInput } from '@vigia/core';
import { MAX_BACKLOG } from '../../streaming/device-uplink.js';
import type { TelemetryUplink, UplinkStats } from '../../streaming/telemetry-uplink.js';
import type { Gt06Profile } from '../profiles/emulator-profile.js';
import { RetryPacer } from '../retry-pacer.js';
import { GT06_PROTOCOL, heartbeatPacket, loginPacket } from './gt06-codec.js';
import { Gt06Link } from './gt06-link.js';
import { samplePacket, sampleStatus } from './sample-to-gt06.js';

export interface Gt06UplinkOptions {
  host: string;
  port: number;
  imei: string;
  profile: Gt06Profile;
  log: Logger;
  /** How long the device waits for the echo of a serial before it gives the connection up and re-sends. */
  ackTimeoutMs?: number;
  connectTimeoutMs?: number;
  /** Packets sent before waiting for their echoes, when catching up. */
  window?: number;
  /** A heartbeat (status) packet goes at most this often, and after each login. */
  heartbeatIntervalMs?: number;
  now?: () => number;
  /** Called with each sample the server echoed, once (tests keep the list of acknowledged positions). */
  onAcknowledged?: (sample: TelemetryInput) => void;
}

const DEFAULT_ACK_TIMEOUT_MS = 15_000;
const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
const DEFAULT_WINDOW = 10;
/** Concox trackers ship with a 3-minute heartbeat. */
const DEFAULT_HEARTBEAT_INTERVAL_MS = 180_000;

/**
 * An emulated GT06 (Concox) tracker over TCP, as the real ones behave: it connects, logs in with
 * its IMEI and needs the login echoed, reports its status in a heartbeat, then sends one location
 * (or status/alarm) packet per sample, each with the next serial number. A sample leaves the
 * device's memory only when the server has echoed that packet's serial; no echo in time or a lost
 * connection drops the connection, and every sample not echoed goes again on a new one (with new
 * serials, flagged as re-uploads), after a backoff. Nothing is dropped except past the backlog
 * bound every emulated device shares.
 */
export class Gt06Uplink implements TelemetryUplink {
  readonly stats: UplinkStats = { sent: 0, accepted: 0, duplicates: 0, rejected: 0, failedRequests: 0, dropped: 0 };
  private backlog: TelemetryInput[] = [];
  /** Samples sent at least once: sent again, they are re-uploads from memory. */
  private readonly tried = new WeakSet<TelemetryInput>();
  private link: Gt06Link | undefined;
  private inFlight: Promise<void> | undefined;
  private readonly pacer: RetryPacer;
  private serial = 0;
  private lastHeartbeatMs = Number.NEGATIVE_INFINITY;
  private latest: TelemetryInput | undefined;
  private readonly now: () => number;

  constructor(private readonly o: Gt06UplinkOptions) {
    this.now = o.now ?? Date.now;
    this.pacer = new RetryPacer(o.imei, o.log, this.now);
  }

  get pending(): number {
    return this.backlog.length;
  }

  enqueue(record: TelemetryInput): void {
    this.backlog.push(record);
    this.latest = record;
    if (this.backlog.length > MAX_BACKLOG) {
      const drop = this.backlog.length - MAX_BACKLOG;
      this.backlog.splice(0, drop);
      this.stats.dropped += drop;
    }
  }

  async whenIdle(): Promise<void> {
    await this.inFlight;
  }

  flush(signal?: AbortSignal): Promise<void> | undefined {
    if (this.inFlight || this.backlog.length === 0 || !this.pacer.ready) return this.inFlight;
    this.inFlight = this.deliver(signal).finally(() => {
      this.inFlight = undefined;
    });
    return this.inFlight;
  }

  async close(): Promise<void> {
    await this.inFlight;
    this.link?.close();
    this.link = undefined;
  }

  /** The next serial number: one per packet, wrapping at 16 bits, kept across connections. */
  private nextSerial(): number {
    this.serial = (this.serial + 1) & 0xffff;
    return this.serial;
  }

  private get ackTimeoutMs(): number {
    return this.o.ackTimeoutMs ?? DEFAULT_ACK_TIMEOUT_MS;
  }

  /** Sends one packet and waits for the echo of its serial (answers to other serials are stale, skipped). */
  private async exchange(link: Gt06Link, protocol: number, packet: (serial: number) => Buffer): Promise<void> {
    const serial = this.nextSerial();
    link.send(packet(serial));
    const deadline = Date.now() + this.ackTimeoutMs;
    for (;;) {
      const answer = await link.next(Math.max(0, deadline - Date.now()));
      if (answer.serial === serial && answer.protocol === protocol) return;
    }
  }

  private async connection(signal: AbortSignal | undefined): Promise<Gt06Link> {
    if (this.link?.open) return this.link;
    this.link?.close();
    this.link = undefined;
    const link = await Gt06Link.open(
      this.o.host,
      this.o.port,
      this.o.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
      signal,
    );
    try {
      await this.exchange(link, GT06_PROTOCOL.login, (serial) => loginPacket(this.o.imei, serial));
    } catch (err) {
      link.close();
      throw new LoginRefused(`login of IMEI ${this.o.imei} not answered: ${(err as Error).message}`);
    }
    this.link = link;
    this.lastHeartbeatMs = Number.NEGATIVE_INFINITY;
    return link;
  }

  private async heartbeatIfDue(link: Gt06Link): Promise<void> {
    if (
      !this.latest ||
      this.now() - this.lastHeartbeatMs < (this.o.heartbeatIntervalMs ?? DEFAULT_HEARTBEAT_INTERVAL_MS)
    ) {
      return;
    }
    const status = sampleStatus(this.latest, this.o.profile);
    await this.exchange(link, GT06_PROTOCOL.heartbeat, (serial) => heartbeatPacket(status, serial));
    this.lastHeartbeatMs = this.now();
  }

  private async deliver(signal: AbortSignal | undefined): Promise<void> {
    try {
      while (this.backlog.length > 0 && !signal?.aborted) {
        const link = await this.connection(signal);
        await this.heartbeatIfDue(link);
        await this.sendWindow(link);
        this.pacer.succeeded();
      }
    } catch (err) {
      // Samples not echoed stay in the backlog: they go again, on a new connection.
      this.link?.close();
      this.link = undefined;
      if (signal?.aborted) return;
      this.stats.failedRequests++;
      const code = err instanceof LoginRefused ? 'LOGIN_REFUSED' : 'NOT_ACKNOWLEDGED';
      this.pacer.failed(code, `GT06 packet not acknowledged: ${(err as Error).message}`, {
        backlog: this.backlog.length,
      });
    }
  }

  /**
   * Sends up to `window` samples, each in its own packet, then takes the echoes as they come: each
   * echoed sample leaves the backlog at once, so a connection lost halfway re-sends only the rest.
   */
  private async sendWindow(link: Gt06Link): Promise<void> {
    const batch = this.backlog.slice(0, this.o.window ?? DEFAULT_WINDOW);
    const waiting = new Map<number, { protocol: number; sample: TelemetryInput }>();
    for (const sample of batch) {
      const serial = this.nextSerial();
      const { protocol, packet } = samplePacket(sample, this.o.profile, serial, this.tried.has(sample));
      this.tried.add(sample);
      waiting.set(serial, { protocol, sample });
      link.send(packet);
    }
    const deadline = Date.now() + this.ackTimeoutMs;
    while (waiting.size > 0) {
      const answer = await link.next(Math.max(0, deadline - Date.now()));
      const sent = waiting.get(answer.serial);
      if (!sent || sent.protocol !== answer.protocol) continue;
      waiting.delete(answer.serial);
      const at = this.backlog.indexOf(sent.sample);
      if (at >= 0) this.backlog.splice(at, 1);
      this.stats.sent++;
      this.stats.accepted++;
      this.o.onAcknowledged?.(sent.sample);
    }
  }
}

class LoginRefused extends Error {}
