import type { Logger, TelemetryInput } from '@vigia/core';
import { BacklogUplink, type DeliveryAttempt, type DeliveryFailure } from '../../streaming/backlog-uplink.js';
import type { Gt06Profile } from '../profiles/emulator-profile.js';
import { TcpLink } from '../tcp-link.js';
import { GT06_PROTOCOL, heartbeatPacket, loginPacket, readServerPacket, type ServerAnswer } from './gt06-codec.js';
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
const DEFAULT_WINDOW = 10;
/** Concox trackers ship with a 3-minute heartbeat. */
const DEFAULT_HEARTBEAT_INTERVAL_MS = 180_000;

/**
 * An emulated GT06 (Concox) tracker over TCP, as the real ones behave: it connects, logs in with
 * its IMEI and needs the login echoed, reports its status in a heartbeat, then sends one location
 * (or status/alarm) packet per sample, each with the next serial number. A sample leaves the
 * device's memory only when the server has echoed that packet's serial; no echo in time or a lost
 * connection drops the connection, and every sample not echoed goes again on a new one (with new
 * serials, flagged as re-uploads), after a backoff (`BacklogUplink`). Nothing is dropped except
 * past the backlog bound every emulated device shares.
 */
export class Gt06Uplink extends BacklogUplink<TcpLink> {
  /** Samples sent at least once: sent again, they are re-uploads from memory. */
  private readonly tried = new WeakSet<TelemetryInput>();
  private serial = 0;
  private lastHeartbeatMs = Number.NEGATIVE_INFINITY;
  private latest: TelemetryInput | undefined;
  private readonly now: () => number;

  constructor(private readonly o: Gt06UplinkOptions) {
    const now = o.now ?? Date.now;
    super({ device: o.imei, log: o.log, now, onAcknowledged: o.onAcknowledged });
    this.now = now;
  }

  override enqueue(record: TelemetryInput): void {
    this.latest = record;
    super.enqueue(record);
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
  private async exchange(link: TcpLink, protocol: number, packet: (serial: number) => Buffer): Promise<void> {
    const serial = this.nextSerial();
    link.send(packet(serial));
    const deadline = Date.now() + this.ackTimeoutMs;
    for (;;) {
      const answer = await link.next<ServerAnswer>(readServerPacket, Math.max(0, deadline - Date.now()));
      if (answer.serial === serial && answer.protocol === protocol) return;
    }
  }

  protected async connect(signal: AbortSignal | undefined): Promise<TcpLink> {
    const link = await TcpLink.open(this.o, signal, async (opened) => {
      try {
        await this.exchange(opened, GT06_PROTOCOL.login, (serial) => loginPacket(this.o.imei, serial));
      } catch (err) {
        throw new LoginRefused(`login of IMEI ${this.o.imei} not answered: ${(err as Error).message}`);
      }
    });
    this.lastHeartbeatMs = Number.NEGATIVE_INFINITY;
    return link;
  }

  protected async send(link: TcpLink, backlog: readonly TelemetryInput[]): Promise<DeliveryAttempt> {
    await this.heartbeatIfDue(link);
    await this.sendWindow(link, backlog);
    return { outcome: 'acknowledged' };
  }

  protected failure(err: unknown): DeliveryFailure {
    return {
      code: err instanceof LoginRefused ? 'LOGIN_REFUSED' : 'NOT_ACKNOWLEDGED',
      message: `GT06 packet not acknowledged: ${(err as Error).message}`,
    };
  }

  private async heartbeatIfDue(link: TcpLink): Promise<void> {
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

  /**
   * Sends up to `window` samples, each in its own packet, then takes the echoes as they come: each
   * echoed sample leaves the backlog at once, so a connection lost halfway re-sends only the rest.
   */
  private async sendWindow(link: TcpLink, backlog: readonly TelemetryInput[]): Promise<void> {
    const batch = backlog.slice(0, this.o.window ?? DEFAULT_WINDOW);
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
      const answer = await link.next<ServerAnswer>(readServerPacket, Math.max(0, deadline - Date.now()));
      const sent = waiting.get(answer.serial);
      if (!sent || sent.protocol !== answer.protocol) continue;
      waiting.delete(answer.serial);
      this.acknowledge([sent.sample]);
    }
  }
}

class LoginRefused extends Error {}
