import type { Socket } from 'node:net';
import type { DeviceEntry } from '../../device-directory.js';
import type { GatewayContext } from '../gateway-context.js';
import type { Channel } from '../metrics/gateway-metrics.js';
import type { DeviceProfile } from '../profiles/profile-schema.js';
import { resolveDevice } from './device-access.js';
import type { DecodedRecord } from './record-sink.js';

/** Bytes read from the socket in one go; with a complete message, about the most a connection buffers. */
const READ_CHUNK_BYTES = 64 * 1024;
/** After the last bytes are written, how long the peer gets to read them before the socket is destroyed. */
const LINGER_MS = 2_000;

/** The error class of a protocol's framing and decoding: its `code` is the refusal's reason. */
export type ProtocolErrorClass = new (code: never, message: string) => Error & { readonly code: string };

export interface TcpDeviceConnectionOptions {
  channel: Channel;
  /** A connection with no traffic at all for this long is closed, as routine: devices reconnect when they have data. */
  idleTimeoutMs: number;
  /** The first message (handshake, login) must arrive this soon; past it the connection is refused with `code`. */
  greeting: { timeoutMs: number; code: string; message: string };
  /** The largest complete message the protocol accepts, framing included. */
  maxMessageBytes: number;
  /** A message once begun must be complete this soon (slowloris). */
  frameTimeoutMs: number;
  /** Messages dropped in a row before the connection is closed (the device sends them again on a new one). */
  maxConsecutiveBadPackets: number;
  /** Thrown by the protocol's frame or message decoder: the connection is refused with its code (lost framing). */
  protocolError: ProtocolErrorClass;
  /**
   * The protocol's frame and message decoding: takes complete messages off `buffered` while
   * `reading`, and returns when it needs more bytes. Never called while another call's work is in
   * flight.
   */
  read(): Promise<void>;
  /** After the socket has closed. */
  onClose?(): void;
}

/**
 * One device's TCP connection, whatever its protocol: the part of Traccar's pipeline below the
 * frame decoder. It buffers what the socket reads, runs the protocol's decoding on it one message
 * at a time, and owns everything a connection must bound or say: the greeting, frame and idle
 * deadlines, the receive buffer's ceiling, bad messages in a row, the device lookup, storage
 * through the shared sink, the acknowledgement, refusals (logged through the limiter and counted)
 * and the close or drain.
 *
 * Flow control: while a lookup or a store is in flight (`exclusive`) the socket is paused, so a
 * device (or anyone) sending faster than the database commits waits in TCP's own window instead of
 * in this process's memory; at most one message plus one read chunk is buffered per connection.
 * Everything that can go wrong is confined to this connection: it is logged with a reason and
 * counted, and at worst this socket is closed.
 */
export class TcpDeviceConnection {
  /** The device's identifier (IMEI) once it said it: every log line names it. */
  device: string | undefined;
  readonly remote: string;
  /** Resolves when the socket has closed. */
  readonly closed: Promise<void>;
  private buffer: Buffer = Buffer.alloc(0);
  private ended = false;
  /** A lookup or a store is in flight: no further message is taken until it is done. */
  private busy = false;
  private draining = false;
  private badPacketsInARow = 0;
  private deadline: NodeJS.Timeout | undefined;

  constructor(
    private readonly socket: Socket,
    private readonly ctx: GatewayContext,
    private readonly opts: TcpDeviceConnectionOptions,
  ) {
    this.remote = `${socket.remoteAddress ?? '?'}:${socket.remotePort ?? '?'}`;
    socket.setNoDelay(true);
    socket.setTimeout(opts.idleTimeoutMs, () => {
      this.ctx.log.debug(
        { ...opts.channel, device: this.device, remote: this.remote },
        'idle device connection closed',
      );
      this.end();
    });
    this.arm(opts.greeting.timeoutMs, opts.greeting.code, opts.greeting.message);
    this.closed = new Promise((resolve) => socket.once('close', () => resolve()));
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', (err) => {
      // Resets and timeouts from the network are routine on mobile links.
      this.ctx.log.debug({ ...opts.channel, device: this.device, remote: this.remote, err }, 'device connection error');
    });
    socket.on('close', () => {
      this.ended = true;
      this.disarm();
      this.opts.onClose?.();
    });
  }

  /** Closed, or closing: nothing more is read, written or stored. */
  get isClosed(): boolean {
    return this.ended;
  }

  /** Taking messages: not closed, not draining, no work in flight (re-read after every await). */
  get reading(): boolean {
    return !this.ended && !this.draining && !this.busy;
  }

  /** What has been received and not yet consumed. */
  get buffered(): Buffer {
    return this.buffer;
  }

  /** Takes `n` bytes off the front of the buffer. Views into them stay valid: the buffer is replaced, not overwritten. */
  consume(n: number): void {
    this.buffer = this.buffer.subarray(n);
    if (this.buffer.length === 0) this.buffer = Buffer.alloc(0);
  }

  /** The buffer holds the beginning of a message: it must be complete before the frame deadline. */
  awaitRestOfMessage(): void {
    if (this.buffer.length > 0 && !this.deadline) {
      this.arm(this.opts.frameTimeoutMs, 'READ_TIMEOUT', 'a packet was begun but not completed in time');
    }
  }

  /** The greeting or the message that was awaited has arrived: no deadline runs until the next one is begun. */
  clearDeadline(): void {
    this.disarm();
  }

  /**
   * Server shutdown, or the device has moved to a new connection: take no further message; one
   * being stored is still acknowledged, then the connection ends.
   */
  drain(): void {
    this.draining = true;
    if (!this.busy) this.end();
  }

  destroy(): void {
    this.socket.destroy();
  }

  /** Runs `work` with the socket paused: the device waits in TCP flow control, not in our memory. */
  async exclusive(work: () => Promise<void>): Promise<void> {
    this.busy = true;
    this.socket.pause();
    try {
      await work();
    } finally {
      this.busy = false;
      if (!this.ended && !this.draining) this.socket.resume();
    }
  }

  /**
   * Who `identifier` is on this channel's protocol and how to read it, looked up on every message (cached): a device retired
   * or moved to another vehicle stops at once. Undefined: the connection is closing. A device the
   * registry does not have for this protocol is refused (after `farewell`, if the protocol has a
   * word for it); an unreachable registry closes the connection without a word, so the device
   * neither stops nor is refused, and retries.
   */
  async lookup(
    identifier: string,
    opts: {
      /** Written before closing on a refusal (a handshake refused). */
      farewell?: Buffer | undefined;
      /** Logs PROFILE_UNAVAILABLE: once per connection, so at the greeting only. */
      greeting?: boolean;
    } = {},
  ): Promise<{ device: DeviceEntry; profile: DeviceProfile } | undefined> {
    let access: Awaited<ReturnType<typeof resolveDevice>>;
    try {
      access = await resolveDevice(
        this.ctx.devices,
        this.ctx.profiles,
        this.opts.channel.protocol,
        identifier,
        opts.greeting ? this.ctx.log : undefined,
      );
    } catch (err) {
      this.ctx.log.error(
        { ...this.opts.channel, device: identifier, remote: this.remote, err, code: 'LOOKUP_FAILED' },
        'device lookup failed; not acknowledged',
      );
      this.socket.destroy();
      return undefined;
    }
    if (!access.ok) {
      this.refuse(access.code, access.message, opts.farewell);
      return undefined;
    }
    return access;
  }

  /**
   * Stores `records` through the shared sink; true once every one is durable or refused for good
   * (logged, counted, quarantined), and only then may they be acknowledged. False: not durable,
   * so not acknowledged, and the connection is destroyed, which makes the device send again on a
   * new connection once storage is back instead of waiting here for an answer that never comes.
   */
  async store(device: DeviceEntry, records: readonly DecodedRecord[]): Promise<boolean> {
    try {
      await this.ctx.sink.store(this.opts.channel, device, records);
      return true;
    } catch (err) {
      this.ctx.log.warn(
        { ...this.opts.channel, device: this.device, code: 'STORAGE_FAILED', records: records.length, err },
        'packet not stored; not acknowledged',
      );
      this.socket.destroy();
      return false;
    }
  }

  /** Writes `bytes` unless the connection is closing; false if it was. */
  write(bytes: Buffer): boolean {
    if (this.ended || this.socket.destroyed) return false;
    this.socket.write(bytes);
    return true;
  }

  /** Writes the answer to a message taken (stored, or needing no storage), and counts it. */
  acknowledge(bytes: Buffer): boolean {
    if (!this.write(bytes)) return false;
    this.ctx.metrics.ack(this.opts.channel);
    return true;
  }

  /** A message dropped without an answer: the device sends it again. Too many in a row close the connection. */
  badPacket(code: string, message: string): void {
    this.badPacketsInARow++;
    this.ctx.metrics.badInput(this.opts.channel, code.toLowerCase());
    // Anyone can send bad packets: a few lines per code, every one counted.
    this.ctx.logLimiter.warn(
      this.ctx.log,
      { ...this.opts.channel, device: this.device, remote: this.remote, code },
      `packet not acknowledged: ${message}`,
    );
    if (this.badPacketsInARow >= this.opts.maxConsecutiveBadPackets) {
      this.refuse('TOO_MANY_BAD_PACKETS', `${this.badPacketsInARow} bad packets in a row`);
    }
  }

  /** A message was taken: the count of bad ones in a row starts again. */
  goodPacket(): void {
    this.badPacketsInARow = 0;
  }

  /** Closes the connection for a reason, logged and counted; `farewell` is written first (a handshake refusal). */
  refuse(code: string, message: string, farewell?: Buffer): void {
    if (this.ended) return;
    this.ended = true;
    this.disarm();
    this.ctx.metrics.badInput(this.opts.channel, code.toLowerCase());
    // Anyone can open connections and be refused: a few lines per code, every one counted.
    this.ctx.logLimiter.warn(
      this.ctx.log,
      { ...this.opts.channel, device: this.device, remote: this.remote, code },
      `connection closed: ${message}`,
    );
    if (farewell) {
      this.socket.end(farewell);
      setTimeout(() => this.socket.destroy(), LINGER_MS).unref();
    } else {
      this.socket.destroy();
    }
  }

  private onData(chunk: Buffer): void {
    if (this.ended) return;
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    // Paused connections receive no more 'data', so this only trips on a peer ignoring the protocol.
    if (this.buffer.length > this.opts.maxMessageBytes + READ_CHUNK_BYTES) {
      this.refuse('BUFFER_OVERFLOW', `${this.buffer.length} bytes buffered without a complete packet`);
      return;
    }
    void this.pump();
  }

  /** Runs the protocol's decoding unless work is in flight (it runs again once that is done and the socket resumes). */
  private async pump(): Promise<void> {
    if (this.busy) return;
    try {
      await this.opts.read();
    } catch (err) {
      if (err instanceof this.opts.protocolError) this.refuse(err.code, err.message);
      else {
        this.ctx.log.error(
          { ...this.opts.channel, device: this.device, remote: this.remote, err },
          'device session failed',
        );
        this.socket.destroy();
      }
    } finally {
      if (this.draining && !this.busy) this.end();
    }
  }

  private end(): void {
    if (this.ended) return;
    this.ended = true;
    this.disarm();
    this.socket.end();
    setTimeout(() => this.socket.destroy(), LINGER_MS).unref();
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
