import type { Socket } from 'node:net';
import type { GatewayContext } from '../gateway-context.js';
import type { Channel } from '../metrics/gateway-metrics.js';
import { TcpDeviceConnection } from '../pipeline/tcp-device-connection.js';
import { decodeAvlData } from './avl-decoder.js';
import { codecName } from './avl-record.js';
import { avlRecordToDecoded } from './avl-to-telemetry.js';
import { TeltonikaProtocolError } from './protocol-error.js';
import {
  encodeRecordCountAck,
  FRAME_OVERHEAD,
  HANDSHAKE_ACCEPTED,
  HANDSHAKE_REFUSED,
  scanFrame,
  scanHandshake,
} from './tcp-frame.js';

export const TELTONIKA_TCP_CHANNEL: Channel = { protocol: 'teltonika', transport: 'tcp' };
const CHANNEL = TELTONIKA_TCP_CHANNEL;

/**
 * One Teltonika device's TCP connection: the IMEI handshake, then packet after packet, each
 * acknowledged with its record count only once its records are durable. The connection itself
 * (flow control, deadlines, refusals, storage, drain) is the shared `TcpDeviceConnection`; this is
 * the protocol's part: the frames and what to answer.
 */
export class TeltonikaTcpSession {
  readonly connection: TcpDeviceConnection;
  private handshaken = false;

  constructor(
    socket: Socket,
    private readonly ctx: GatewayContext,
  ) {
    const limits = ctx.limits;
    this.connection = new TcpDeviceConnection(socket, ctx, {
      channel: CHANNEL,
      idleTimeoutMs: limits.teltonikaIdleTimeoutMs,
      greeting: {
        timeoutMs: limits.teltonikaHandshakeTimeoutMs,
        code: 'HANDSHAKE_TIMEOUT',
        message: 'no IMEI received in time',
      },
      maxMessageBytes: limits.teltonikaMaxDataBytes + FRAME_OVERHEAD,
      frameTimeoutMs: limits.teltonikaFrameTimeoutMs,
      maxConsecutiveBadPackets: limits.teltonikaMaxConsecutiveBadPackets,
      protocolError: TeltonikaProtocolError,
      read: () => this.read(),
    });
  }

  /** Takes complete messages off the buffer, one at a time, until it needs more bytes. */
  private async read(): Promise<void> {
    const conn = this.connection;
    while (conn.reading) {
      if (!this.handshaken) {
        const scan = scanHandshake(conn.buffered);
        if (scan.kind === 'incomplete') return;
        conn.consume(scan.consumed);
        await conn.exclusive(() => this.handshake(scan.imei));
        continue;
      }
      const scan = scanFrame(conn.buffered, this.ctx.limits.teltonikaMaxDataBytes);
      if (scan.kind === 'incomplete') {
        conn.awaitRestOfMessage();
        return;
      }
      conn.consume(scan.consumed);
      conn.clearDeadline();
      if (scan.kind === 'keep-alive') continue;
      if (!scan.crcOk) {
        conn.badPacket(
          'CRC_MISMATCH',
          `CRC 0x${scan.crcReceived.toString(16).padStart(8, '0')} received, 0x${scan.crcComputed.toString(16).padStart(4, '0')} computed`,
        );
        continue;
      }
      // Copy: `data` is a view into the receive buffer, which the next read replaces.
      const data = Buffer.from(scan.data);
      await conn.exclusive(() => this.packet(data));
    }
  }

  private async handshake(imei: string): Promise<void> {
    const conn = this.connection;
    conn.clearDeadline();
    conn.device = imei;
    const access = await conn.lookup(imei, { farewell: HANDSHAKE_REFUSED, greeting: true });
    if (!access) return;
    this.handshaken = true;
    conn.write(HANDSHAKE_ACCEPTED);
    this.ctx.log.debug(
      { ...CHANNEL, device: imei, remote: conn.remote, profile: access.profile.name },
      'device connected',
    );
  }

  private async packet(data: Buffer): Promise<void> {
    const conn = this.connection;
    const imei = conn.device as string;
    let packet: ReturnType<typeof decodeAvlData>;
    try {
      packet = decodeAvlData(data);
    } catch (err) {
      if (!(err instanceof TeltonikaProtocolError)) throw err;
      conn.badPacket(err.code, err.message);
      return;
    }
    const access = await conn.lookup(imei);
    if (!access) return;
    const records = packet.records.map((r, i) => avlRecordToDecoded(imei, r, access.profile, packet.recordBytes[i]));
    if (!(await conn.store(access.device, records))) return;
    conn.goodPacket();
    // Every record is now stored or refused for good (logged, counted, and kept in the quarantine):
    // acknowledging all of them is what lets the device move on; a partial count would make it
    // send the packet forever.
    if (!conn.acknowledge(encodeRecordCountAck(packet.records.length))) return;
    this.ctx.log.debug(
      { ...CHANNEL, device: imei, codec: codecName(packet.codec), records: packet.records.length },
      'packet stored and acknowledged',
    );
  }
}
