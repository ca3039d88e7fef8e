import type { Socket } from 'node:net';
import type { GatewayContext } from '../gateway-context.js';
import type { Channel } from '../metrics/gateway-metrics.js';
import { resolveDevice } from '../pipeline/device-access.js';
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

const CHANNEL: Channel = { protocol: 'teltonika', transport: 'tcp' };
/** Bytes read from the socket in one go; with a complete packet, the most a session ever buffers. */
const READ_CHUNK_BYTES = 64 * 1024;
/** After a refusal is written, how long the peer gets to read it before the socket is destroyed. */
const LINGER_MS = 2_000;

type State = 'handshake' | 'open' | 'closed';

/**
 * One device's TCP connection: the IMEI handshake, then packet after packet, each acknowledged
 * with its record count only once its records are durable.
 *
 * Flow control: while a handshake lookup or a packet's storage is in flight the socket is
 * paused, so a device (or anyone) sending faster than the database commits waits in TCP's own
 * window instead of in this process's memory; at most one packet plus one read chunk is
 * buffered per connection. Everything that can go wrong is confined to this session: it is
 * logged with a reason and counted, and at worst this socket is closed.
 */
export class TeltonikaTcpSession {
  private state: State = 'handshake';
  private buffer: Buffer = Buffer.alloc(0);
  private imei: string | undefined;
  /** A lookup or a store is in flight: no further packet is taken until it is done. */
  private busy = false;
  private draining = false;
  private badPacketsInARow = 0;
  private deadline: NodeJS.Timeout | undefined;
  private readonly closedPromise: Promise<void>;
  private readonly remote: string;

  constructor(
    private readonly socket: Socket,
    private readonly ctx: GatewayContext,
  ) {
    this.remote = `${socket.remoteAddress ?? '?'}:${socket.remotePort ?? '?'}`;
    socket.setNoDelay(true);
    // Devices go quiet between reports and reconnect when they have data: an idle close is routine.
    socket.setTimeout(ctx.limits.teltonikaIdleTimeoutMs, () => {
      this.ctx.log.debug({ ...CHANNEL, device: this.imei, remote: this.remote }, 'idle device connection closed');
      this.end();
    });
    this.arm(ctx.limits.teltonikaHandshakeTimeoutMs, 'HANDSHAKE_TIMEOUT', 'no IMEI received in time');
    this.closedPromise = new Promise((resolve) => socket.once('close', () => resolve()));
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', (err) => {
      // Resets and timeouts from the network are routine on mobile links.
      this.ctx.log.debug({ ...CHANNEL, device: this.imei, remote: this.remote, err }, 'device connection error');
    });
    socket.on('close', () => {
      this.state = 'closed';
      this.disarm();
    });
  }

  /** Resolves when the socket has closed. */
  get closed(): Promise<void> {
    return this.closedPromise;
  }

  /**
   * Server shutdown: take no further packet; a packet being stored is still acknowledged, then
   * the connection ends.
   */
  drain(): void {
    this.draining = true;
    if (!this.busy) this.end();
  }

  destroy(): void {
    this.socket.destroy();
  }

  private onData(chunk: Buffer): void {
    if (this.state === 'closed') return;
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    // Paused sessions receive no more 'data', so this only trips on a peer ignoring the protocol.
    if (this.buffer.length > this.ctx.limits.teltonikaMaxDataBytes + FRAME_OVERHEAD + READ_CHUNK_BYTES) {
      this.refuse('BUFFER_OVERFLOW', `${this.buffer.length} bytes buffered without a complete packet`);
      return;
    }
    void this.pump();
  }

  /** Takes complete messages off the buffer, one at a time, until it needs more bytes. */
  private async pump(): Promise<void> {
    if (this.busy) return;
    try {
      while (this.state !== 'closed' && !this.draining && !this.busy) {
        if (this.state === 'handshake') {
          const scan = scanHandshake(this.buffer);
          if (scan.kind === 'incomplete') return;
          this.consume(scan.consumed);
          await this.exclusive(() => this.handshake(scan.imei));
          continue;
        }
        const scan = scanFrame(this.buffer, this.ctx.limits.teltonikaMaxDataBytes);
        if (scan.kind === 'incomplete') {
          if (this.buffer.length > 0 && !this.deadline) {
            this.arm(
              this.ctx.limits.teltonikaFrameTimeoutMs,
              'READ_TIMEOUT',
              'a packet was begun but not completed in time',
            );
          }
          return;
        }
        this.consume(scan.consumed);
        this.disarm();
        if (scan.kind === 'keep-alive') continue;
        if (!scan.crcOk) {
          this.badPacket(
            'CRC_MISMATCH',
            `CRC 0x${scan.crcReceived.toString(16).padStart(8, '0')} received, 0x${scan.crcComputed.toString(16).padStart(4, '0')} computed`,
          );
          continue;
        }
        // Copy: `data` is a view into the receive buffer, which the next read replaces.
        const data = Buffer.from(scan.data);
        await this.exclusive(() => this.packet(data));
      }
    } catch (err) {
      if (err instanceof TeltonikaProtocolError) this.refuse(err.code, err.message);
      else {
        this.ctx.log.error({ ...CHANNEL, device: this.imei, remote: this.remote, err }, 'device session failed');
        this.socket.destroy();
      }
    } finally {
      if (this.draining && !this.busy) this.end();
    }
  }

  /** Runs `work` with the socket paused: the device waits in TCP flow control, not in our memory. */
  private async exclusive(work: () => Promise<void>): Promise<void> {
    this.busy = true;
    this.socket.pause();
    try {
      await work();
    } finally {
      this.busy = false;
      if (this.state !== 'closed' && !this.draining) this.socket.resume();
    }
  }

  private async handshake(imei: string): Promise<void> {
    this.disarm();
    this.imei = imei;
    let access: Awaited<ReturnType<typeof resolveDevice>>;
    try {
      // Logged once per connection: a profile the registry names but that does not exist (PROFILE_UNAVAILABLE).
      access = await resolveDevice(this.ctx.devices, this.ctx.profiles, 'teltonika', imei, this.ctx.log);
    } catch (err) {
      // The registry is unreachable: say nothing, so the device neither stops nor is refused, and retries.
      this.ctx.log.error(
        { ...CHANNEL, device: imei, remote: this.remote, err, code: 'LOOKUP_FAILED' },
        'device lookup failed',
      );
      this.socket.destroy();
      return;
    }
    if (!access.ok) {
      this.refuse(access.code, access.message, HANDSHAKE_REFUSED);
      return;
    }
    this.state = 'open';
    this.socket.write(HANDSHAKE_ACCEPTED);
    this.ctx.log.debug(
      { ...CHANNEL, device: imei, remote: this.remote, profile: access.profile.name },
      'device connected',
    );
  }

  private async packet(data: Buffer): Promise<void> {
    const imei = this.imei as string;
    let packet: ReturnType<typeof decodeAvlData>;
    try {
      packet = decodeAvlData(data);
    } catch (err) {
      if (!(err instanceof TeltonikaProtocolError)) throw err;
      this.badPacket(err.code, err.message);
      return;
    }
    // Looked up again (cached): a device retired or moved to another vehicle stops at once.
    let access: Awaited<ReturnType<typeof resolveDevice>>;
    try {
      access = await resolveDevice(this.ctx.devices, this.ctx.profiles, 'teltonika', imei);
    } catch (err) {
      this.ctx.log.error(
        { ...CHANNEL, device: imei, err, code: 'LOOKUP_FAILED' },
        'device lookup failed; not acknowledged',
      );
      this.socket.destroy();
      return;
    }
    if (!access.ok) {
      this.refuse(access.code, access.message);
      return;
    }
    const records = packet.records.map((r, i) => avlRecordToDecoded(imei, r, access.profile, packet.recordBytes[i]));
    try {
      await this.ctx.sink.store(CHANNEL, access.device, records);
    } catch (err) {
      // Not durable, so not acknowledged: closing makes the device send the packet again on a
      // new connection once storage is back, instead of waiting here for an ACK that never comes.
      this.ctx.log.warn(
        { ...CHANNEL, device: imei, code: 'STORAGE_FAILED', records: records.length, err },
        'packet not stored; not acknowledged',
      );
      this.socket.destroy();
      return;
    }
    this.badPacketsInARow = 0;
    if (this.state === 'closed') return;
    // Every record is now stored or refused for good (logged, counted, and kept in the quarantine):
    // acknowledging all of them is what lets the device move on; a partial count would make it
    // send the packet forever.
    this.socket.write(encodeRecordCountAck(packet.records.length));
    this.ctx.metrics.ack(CHANNEL);
    this.ctx.log.debug(
      { ...CHANNEL, device: imei, codec: codecName(packet.codec), records: packet.records.length },
      'packet stored and acknowledged',
    );
  }

  /** A packet refused without an ACK: the device will send it again. */
  private badPacket(code: TeltonikaProtocolError['code'], message: string): void {
    this.badPacketsInARow++;
    this.ctx.metrics.badInput(CHANNEL, code.toLowerCase());
    this.ctx.logLimiter.warn(
      this.ctx.log,
      { ...CHANNEL, device: this.imei, remote: this.remote, code },
      `packet not acknowledged: ${message}`,
    );
    if (this.badPacketsInARow >= this.ctx.limits.teltonikaMaxConsecutiveBadPackets) {
      this.refuse('TOO_MANY_BAD_PACKETS', `${this.badPacketsInARow} bad packets in a row`);
    }
  }

  /** Closes the connection for a reason, logged and counted; `farewell` is written first (a handshake refusal). */
  private refuse(code: string, message: string, farewell?: Buffer): void {
    if (this.state === 'closed') return;
    this.state = 'closed';
    this.disarm();
    this.ctx.metrics.badInput(CHANNEL, code.toLowerCase());
    // Anyone can open connections and be refused: a few lines per code, every one counted.
    this.ctx.logLimiter.warn(
      this.ctx.log,
      { ...CHANNEL, device: this.imei, remote: this.remote, code },
      `connection closed: ${message}`,
    );
    if (farewell) {
      this.socket.end(farewell);
      setTimeout(() => this.socket.destroy(), LINGER_MS).unref();
    } else {
      this.socket.destroy();
    }
  }

  private end(): void {
    if (this.state === 'closed') return;
    this.state = 'closed';
    this.disarm();
    this.socket.end();
    setTimeout(() => this.socket.destroy(), LINGER_MS).unref();
  }

  private consume(n: number): void {
    this.buffer = this.buffer.subarray(n);
    if (this.buffer.length === 0) this.buffer = Buffer.alloc(0);
  }

  private arm(ms: number, code: string, message: string): void {
    this.disarm();
    this.deadline = setTimeout(() => {
      this.deadline = undefined;
      this.refuse(code, message);
    }, ms);
    this.deadline.unref();
  }

  private disarm(): void {
    if (this.deadline) clearTimeout(this.deadline);
    this.deadline = undefined;
  }
}
