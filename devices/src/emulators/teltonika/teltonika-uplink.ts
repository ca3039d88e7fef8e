import type { Logger, TelemetryInput } from '@vigia/core';
import { BacklogUplink, type DeliveryAttempt, type DeliveryFailure } from '../../streaming/backlog-uplink.js';
import type { TeltonikaProfile } from '../profiles/emulator-profile.js';
import { TcpLink } from '../tcp-link.js';
import { avlPacket, imeiMessage } from './codec8e.js';
import { sampleToAvl } from './sample-to-avl.js';

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
const DEFAULT_RECORDS_PER_PACKET = 25;

/**
 * An emulated Teltonika tracker speaking Codec 8 Extended over TCP, as the real ones do: it opens
 * a connection, introduces itself with its IMEI and needs 01 back, then sends AVL packets and
 * forgets a record only when the server has acknowledged it with the packet's record count. No
 * ACK in time, a wrong count or a lost connection: the connection is dropped and the same
 * records go again on a new one, after a backoff (`BacklogUplink`). The connection stays open
 * between packets.
 */
export class TeltonikaUplink extends BacklogUplink<TcpLink> {
  constructor(private readonly o: TeltonikaUplinkOptions) {
    super({ device: o.imei, log: o.log, now: o.now });
  }

  private get ackTimeoutMs(): number {
    return this.o.ackTimeoutMs ?? DEFAULT_ACK_TIMEOUT_MS;
  }

  protected connect(signal: AbortSignal | undefined): Promise<TcpLink> {
    return TcpLink.open(this.o, signal, async (link) => {
      const answer = await link.exchange(imeiMessage(this.o.imei), 1, this.ackTimeoutMs);
      if (answer[0] !== 0x01) {
        throw new HandshakeRefused(`the server refused IMEI ${this.o.imei} (answered ${answer.toString('hex')})`);
      }
    });
  }

  protected async send(link: TcpLink, backlog: readonly TelemetryInput[]): Promise<DeliveryAttempt> {
    const batch = backlog.slice(0, this.o.maxRecordsPerPacket ?? DEFAULT_RECORDS_PER_PACKET);
    const packet = avlPacket(batch.map((s) => sampleToAvl(s, this.o.profile)));
    const ack = await link.exchange(packet, 4, this.ackTimeoutMs);
    const accepted = ack.readUInt32BE(0);
    if (accepted !== batch.length) throw new Error(`the server acknowledged ${accepted} of ${batch.length} records`);
    this.acknowledge(batch);
    return { outcome: 'acknowledged' };
  }

  protected failure(err: unknown): DeliveryFailure {
    return {
      code: err instanceof HandshakeRefused ? 'HANDSHAKE_REFUSED' : 'NOT_ACKNOWLEDGED',
      message: `Teltonika packet not acknowledged: ${(err as Error).message}`,
    };
  }
}

class HandshakeRefused extends Error {}
