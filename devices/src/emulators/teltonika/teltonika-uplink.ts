import type { Logger, TelemetryInput } from '@vigia/core';
import { MAX_BACKLOG } from '../../streaming/device-uplink.js';
import type { TelemetryUplink, UplinkStats } from '../../streaming/telemetry-uplink.js';
import type { TeltonikaProfile } from '../profiles/emulator-profile.js';
import { RetryPacer } from '../retry-pacer.js';
import { avlPacket, imeiMessage } from './codec8e.js';
import { sampleToAvl } from './sample-to-avl.js';
import { TcpLink } from './tcp-link.js';

export interface TeltonikaUplinkOptions {
  host: string;
  port: number;
  imei: string;
  profile: TeltonikaProfile;
  log: Logger;
  /** How long the device waits for the record-count ACK before it gives the connection up and re-sends. */
  ackTimeoutMs?: number;
  connectTimeoutMs?: number;
  /** Records per AVL packet when catching up. */
  maxRecordsPerPacket?: number;
  now?: () => number;
}

const DEFAULT_ACK_TIMEOUT_MS = 15_000;
const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
const DEFAULT_RECORDS_PER_PACKET = 25;

/**
 * An emulated Teltonika tracker speaking Codec 8 Extended over TCP, as the real ones do: it opens
 * a connection, introduces itself with its IMEI and needs 01 back, then sends AVL packets and
 * forgets a record only when the server has acknowledged it with the packet's record count. No
 * ACK in time, a wrong count or a lost connection: the connection is dropped and the same
 * records go again on a new one, after a backoff. The connection stays open between packets.
 */
export class TeltonikaUplink implements TelemetryUplink {
  readonly stats: UplinkStats = { sent: 0, accepted: 0, duplicates: 0, rejected: 0, failedRequests: 0, dropped: 0 };
  private backlog: TelemetryInput[] = [];
  private link: TcpLink | undefined;
  private inFlight: Promise<void> | undefined;
  private readonly pacer: RetryPacer;

  constructor(private readonly o: TeltonikaUplinkOptions) {
    this.pacer = new RetryPacer(o.imei, o.log, o.now);
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

  private async connection(signal: AbortSignal | undefined): Promise<TcpLink> {
    if (this.link?.open) return this.link;
    this.link?.close();
    this.link = undefined;
    const link = await TcpLink.open(
      this.o.host,
      this.o.port,
      this.o.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
      signal,
    );
    const answer = await link.exchange(imeiMessage(this.o.imei), 1, this.o.ackTimeoutMs ?? DEFAULT_ACK_TIMEOUT_MS);
    if (answer[0] !== 0x01) {
      link.close();
      throw new HandshakeRefused(`the server refused IMEI ${this.o.imei} (answered ${answer.toString('hex')})`);
    }
    this.link = link;
    return link;
  }

  private async deliver(signal: AbortSignal | undefined): Promise<void> {
    try {
      while (this.backlog.length > 0 && !signal?.aborted) {
        const link = await this.connection(signal);
        const batch = this.backlog.slice(0, this.o.maxRecordsPerPacket ?? DEFAULT_RECORDS_PER_PACKET);
        const packet = avlPacket(batch.map((s) => sampleToAvl(s, this.o.profile)));
        const ack = await link.exchange(packet, 4, this.o.ackTimeoutMs ?? DEFAULT_ACK_TIMEOUT_MS);
        const accepted = ack.readUInt32BE(0);
        if (accepted !== batch.length) {
          throw new Error(`the server acknowledged ${accepted} of ${batch.length} records`);
        }
        this.backlog.splice(0, batch.length);
        this.stats.sent += batch.length;
        this.stats.accepted += batch.length;
        this.pacer.succeeded();
      }
    } catch (err) {
      // The records stay in the backlog: they go again, on a new connection.
      this.link?.close();
      this.link = undefined;
      if (signal?.aborted) return;
      this.stats.failedRequests++;
      const code = err instanceof HandshakeRefused ? 'HANDSHAKE_REFUSED' : 'NOT_ACKNOWLEDGED';
      this.pacer.failed(code, `Teltonika packet not acknowledged: ${(err as Error).message}`, {
        backlog: this.backlog.length,
      });
    }
  }
}

class HandshakeRefused extends Error {}
