import type { Socket } from 'node:net';
import type { DeviceEntry } from '../../device-directory.js';
import type { GatewayContext } from '../gateway-context.js';
import type { Channel } from '../metrics/gateway-metrics.js';
import { resolveDevice } from '../pipeline/device-access.js';
import type { DeviceProfile } from '../profiles/profile-schema.js';
import { decodeGt06 } from './gt06-decoder.js';
import type { Gt06DeviceState, Gt06DeviceStates } from './gt06-device-state.js';
import { type Gt06ErrorCode, Gt06ProtocolError } from './gt06-error.js';
import { encodeGt06Response, type Gt06Packet, scanGt06Packet } from './gt06-frame.js';
import type { Gt06Message } from './gt06-message.js';
import { type Gt06DecodedRecord, type Gt06Position, gt06PositionToDecoded, learn } from './gt06-to-telemetry.js';

export const GT06_CHANNEL: Channel = { protocol: 'gt06', transport: 'tcp' };
const CHANNEL = GT06_CHANNEL;
/** Bytes read from the socket in one go; with complete packets, about the most a session buffers. */
const READ_CHUNK_BYTES = 64 * 1024;
/** After the last bytes are written, how long the peer gets to read them before the socket is destroyed. */
const LINGER_MS = 2_000;
/** Positions already received that are stored in one go (one write, then their answers in order). */
const MAX_POSITIONS_PER_STORE = 64;

type State = 'login' | 'open' | 'closed';

/** A position packet waiting to be stored with the ones received right after it. */
interface PendingPosition {
  packet: Pick<Gt06Packet, 'protocol' | 'serial' | 'long'>;
  message: Gt06Position;
  /** The packet as received, start to stop bits. */
  raw: Buffer;
}

/**
 * One GT06 connection: the login, then packet after packet, each answered with its protocol
 * number and serial echoed — a position or alarm only once its record is durable (or refused for
 * good, logged, counted and quarantined), a heartbeat at once (it carries nothing to store).
 *
 * Refusals: a packet with a bad CRC, of a protocol this gateway does not take, or with a content
 * that does not fit its protocol's layout is dropped, counted and never answered (the device
 * sends it again); so is any packet before a login, since only the login says who is sending. A
 * login of an IMEI that is not registered for GT06 closes the connection unanswered. Lost framing
 * (start or stop bits not where the length puts them) closes the connection.
 *
 * Flow control as for Teltonika: while a lookup or a store is in flight the socket is paused, so
 * a device sending faster than the database commits waits in TCP's window, not in our memory.
 */
export class Gt06Session {
  private state: State = 'login';
  private buffer: Buffer = Buffer.alloc(0);
  private imei: string | undefined;
  private device: Gt06DeviceState | undefined;
  private busy = false;
  private draining = false;
  private badPacketsInARow = 0;
  private deadline: NodeJS.Timeout | undefined;
  private readonly closedPromise: Promise<void>;
  private readonly remote: string;

  constructor(
    private readonly socket: Socket,
    private readonly ctx: GatewayContext,
    private readonly devices: Gt06DeviceStates<Gt06Session>,
  ) {
    this.remote = `${socket.remoteAddress ?? '?'}:${socket.remotePort ?? '?'}`;
    socket.setNoDelay(true);
    // Trackers send a heartbeat every few minutes; a connection silent for longer is dead or idle.
    socket.setTimeout(ctx.limits.gt06IdleTimeoutMs, () => {
      this.ctx.log.debug({ ...CHANNEL, device: this.imei, remote: this.remote }, 'idle device connection closed');
      this.end();
    });
    this.arm(ctx.limits.gt06LoginTimeoutMs, 'LOGIN_TIMEOUT', 'no login received in time');
    this.closedPromise = new Promise((resolve) => socket.once('close', () => resolve()));
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', (err) => {
      this.ctx.log.debug({ ...CHANNEL, device: this.imei, remote: this.remote, err }, 'device connection error');
    });
    socket.on('close', () => {
      this.state = 'closed';
      this.disarm();
      if (this.imei) this.devices.detach(this.imei, this);
    });
  }

  /** Closed, or taking no further packet (the state changes across awaits, which TypeScript cannot see). */
  private get stopped(): boolean {
    return this.state === 'closed' || this.draining;
  }

  get closed(): Promise<void> {
    return this.closedPromise;
  }

  /** Take no further packet; what is being stored is still answered, then the connection ends. */
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
    if (this.buffer.length > this.ctx.limits.gt06MaxPacketBytes + READ_CHUNK_BYTES) {
      this.refuse('BUFFER_OVERFLOW', `${this.buffer.length} bytes buffered without a complete packet`);
      return;
    }
    void this.pump();
  }

  /** Takes complete packets off the buffer until it needs more bytes; positions in a row are stored together. */
  private async pump(): Promise<void> {
    if (this.busy) return;
    const batch: PendingPosition[] = [];
    try {
      while (this.state !== 'closed' && !this.draining && !this.busy) {
        const scan = scanGt06Packet(this.buffer, this.ctx.limits.gt06MaxPacketBytes);
        if (scan.kind === 'incomplete') {
          if (this.buffer.length > 0 && !this.deadline) {
            this.arm(
              this.ctx.limits.gt06FrameTimeoutMs,
              'READ_TIMEOUT',
              'a packet was begun but not completed in time',
            );
          }
          break;
        }
        // Copy: the packet is a view into the receive buffer, which the next read replaces.
        const raw = Buffer.from(this.buffer.subarray(0, scan.consumed));
        this.consume(scan.consumed);
        if (this.state === 'open') this.disarm();
        if (!scan.crcOk) {
          this.badPacket(
            'CRC_MISMATCH',
            `protocol 0x${scan.protocol.toString(16)}: CRC 0x${scan.crcReceived.toString(16).padStart(4, '0')} received, 0x${scan.crcComputed.toString(16).padStart(4, '0')} computed`,
          );
          continue;
        }
        let message: Gt06Message;
        try {
          message = decodeGt06(scan.protocol, scan.content);
        } catch (err) {
          if (!(err instanceof Gt06ProtocolError)) throw err;
          this.badPacket(err.code, err.message);
          continue;
        }
        if (message.kind !== 'login' && this.state !== 'open') {
          this.badPacket(
            'NOT_LOGGED_IN',
            `protocol 0x${scan.protocol.toString(16)} before a login: the sender is unknown`,
          );
          continue;
        }
        // Positions received together are stored together; anything else waits for them, so the
        // device state (ACC, status) is learnt in the order the device sent it.
        if (batch.length > 0 && (message.kind !== 'position' || batch.length >= MAX_POSITIONS_PER_STORE)) {
          await this.exclusive(() => this.storePositions(batch.splice(0)));
          if (this.stopped) break;
        }
        if (message.kind === 'position') {
          const { protocol, serial, long } = scan;
          batch.push({ packet: { protocol, serial, long }, message, raw });
          this.badPacketsInARow = 0;
          continue;
        }
        await this.exclusive(() => this.other(message, scan));
      }
      if (batch.length > 0 && !this.stopped) await this.exclusive(() => this.storePositions(batch.splice(0)));
    } catch (err) {
      if (err instanceof Gt06ProtocolError) this.refuse(err.code, err.message);
      else {
        this.ctx.log.error({ ...CHANNEL, device: this.imei, remote: this.remote, err }, 'device session failed');
        this.socket.destroy();
      }
    } finally {
      if (this.draining && !this.busy) this.end();
    }
  }

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

  /** Looks the device up again (cached): a device retired or moved stops at once. Undefined: closed. */
  private async access(imei: string): Promise<{ device: DeviceEntry; profile: DeviceProfile } | undefined> {
    let access: Awaited<ReturnType<typeof resolveDevice>>;
    try {
      access = await resolveDevice(this.ctx.devices, this.ctx.profiles, 'gt06', imei);
    } catch (err) {
      // The registry is unreachable: say nothing, so the device neither stops nor is refused, and retries.
      this.ctx.log.error(
        { ...CHANNEL, device: imei, remote: this.remote, err, code: 'LOOKUP_FAILED' },
        'device lookup failed',
      );
      this.socket.destroy();
      return undefined;
    }
    if (!access.ok) {
      this.refuse(access.code, access.message);
      return undefined;
    }
    return access;
  }

  private async other(message: Exclude<Gt06Message, { kind: 'position' }>, packet: Gt06Packet): Promise<void> {
    switch (message.kind) {
      case 'login': {
        this.disarm();
        if (this.imei !== undefined && this.imei !== message.imei) this.devices.detach(this.imei, this);
        this.imei = message.imei;
        const access = await this.access(message.imei);
        if (!access) return;
        const { state, superseded } = this.devices.attach(message.imei, this);
        this.device = state;
        if (message.utcOffsetMinutes !== undefined) state.loginUtcOffsetMinutes = message.utcOffsetMinutes;
        if (superseded) {
          this.ctx.log.info(
            { ...CHANNEL, device: message.imei, remote: this.remote, code: 'SESSION_MOVED' },
            'device logged in on a new connection: the old one is closed, its state continues',
          );
          superseded.drain();
        }
        this.state = 'open';
        this.badPacketsInARow = 0;
        this.answer(packet);
        this.ctx.log.debug(
          { ...CHANNEL, device: message.imei, remote: this.remote, profile: access.profile.name },
          'device logged in',
        );
        return;
      }
      case 'status':
        learn(this.device as Gt06DeviceState, message);
        this.badPacketsInARow = 0;
        this.answer(packet);
        return;
      case 'commandReply':
        // The answer to a command sent over another channel; the protocol asks for no answer to it.
        this.badPacketsInARow = 0;
        this.ctx.log.info(
          { ...CHANNEL, device: this.imei, code: 'COMMAND_REPLY', reply: message.text },
          'device replied to a command',
        );
        return;
    }
  }

  private async storePositions(batch: PendingPosition[]): Promise<void> {
    const imei = this.imei as string;
    const access = await this.access(imei);
    if (!access) return;
    const device = this.device as Gt06DeviceState;
    const records: Gt06DecodedRecord[] = batch.map((b) => {
      // Built before `learn`: a record without ACC of its own takes what the device said before it.
      const record = gt06PositionToDecoded(imei, b.message, device, access.profile, b.raw);
      learn(device, b.message);
      return record;
    });
    try {
      await this.ctx.sink.store(CHANNEL, access.device, records);
    } catch (err) {
      // Not durable, so not answered: closing makes the device send again on a new connection.
      this.ctx.log.warn(
        { ...CHANNEL, device: imei, code: 'STORAGE_FAILED', records: records.length, err },
        'positions not stored; not answered',
      );
      this.socket.destroy();
      return;
    }
    if (this.state === 'closed') return;
    for (const b of batch) this.answer(b.packet);
  }

  private answer(packet: Pick<Gt06Packet, 'protocol' | 'serial' | 'long'>): void {
    if (this.state === 'closed' || this.socket.destroyed) return;
    this.socket.write(encodeGt06Response(packet.protocol, packet.serial, packet.long));
    this.ctx.metrics.ack(CHANNEL);
  }

  /** A packet dropped without an answer: the device sends it again. */
  private badPacket(code: Gt06ErrorCode | 'NOT_LOGGED_IN', message: string): void {
    this.badPacketsInARow++;
    this.ctx.metrics.badInput(CHANNEL, code.toLowerCase());
    // Anyone can send bad packets: a few lines per code, every one counted.
    this.ctx.logLimiter.warn(
      this.ctx.log,
      { ...CHANNEL, device: this.imei, remote: this.remote, code },
      `packet not answered: ${message}`,
    );
    if (this.badPacketsInARow >= this.ctx.limits.gt06MaxConsecutiveBadPackets) {
      this.refuse('TOO_MANY_BAD_PACKETS', `${this.badPacketsInARow} bad packets in a row`);
    }
  }

  /** Closes the connection for a reason, logged and counted, without a word to the device. */
  private refuse(code: string, message: string): void {
    if (this.state === 'closed') return;
    this.state = 'closed';
    this.disarm();
    this.ctx.metrics.badInput(CHANNEL, code.toLowerCase());
    this.ctx.logLimiter.warn(
      this.ctx.log,
      { ...CHANNEL, device: this.imei, remote: this.remote, code },
      `connection closed: ${message}`,
    );
    this.socket.destroy();
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
