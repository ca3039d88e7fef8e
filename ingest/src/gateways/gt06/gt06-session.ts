import type { Socket } from 'node:net';
import type { GatewayContext } from '../gateway-context.js';
import type { Channel } from '../metrics/gateway-metrics.js';
import { TcpDeviceConnection } from '../pipeline/tcp-device-connection.js';
import { decodeGt06 } from './gt06-decoder.js';
import type { Gt06DeviceState, Gt06DeviceStates } from './gt06-device-state.js';
import { Gt06ProtocolError } from './gt06-error.js';
import { encodeGt06Response, type Gt06Packet, scanGt06Packet } from './gt06-frame.js';
import type { Gt06Message } from './gt06-message.js';
import { type Gt06DecodedRecord, type Gt06Position, gt06PositionToDecoded, learn } from './gt06-to-telemetry.js';

export const GT06_CHANNEL: Channel = { protocol: 'gt06', transport: 'tcp' };
const CHANNEL = GT06_CHANNEL;
/** Positions already received that are stored in one go (one write, then their answers in order). */
const MAX_POSITIONS_PER_STORE = 64;

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
 * The connection itself (flow control, deadlines, refusals, storage, drain) is the shared
 * `TcpDeviceConnection`, as for Teltonika; this is the protocol's part.
 */
export class Gt06Session {
  readonly connection: TcpDeviceConnection;
  private loggedIn = false;
  private device: Gt06DeviceState | undefined;

  constructor(
    socket: Socket,
    private readonly ctx: GatewayContext,
    private readonly devices: Gt06DeviceStates<TcpDeviceConnection>,
  ) {
    const limits = ctx.limits;
    this.connection = new TcpDeviceConnection(socket, ctx, {
      channel: CHANNEL,
      // Trackers send a heartbeat every few minutes; a connection silent for longer is dead or idle.
      idleTimeoutMs: limits.gt06IdleTimeoutMs,
      greeting: { timeoutMs: limits.gt06LoginTimeoutMs, code: 'LOGIN_TIMEOUT', message: 'no login received in time' },
      maxMessageBytes: limits.gt06MaxPacketBytes,
      frameTimeoutMs: limits.gt06FrameTimeoutMs,
      maxConsecutiveBadPackets: limits.gt06MaxConsecutiveBadPackets,
      protocolError: Gt06ProtocolError,
      read: () => this.read(),
      onClose: () => {
        if (this.connection.device) this.devices.detach(this.connection.device, this.connection);
      },
    });
  }

  /** Takes complete packets off the buffer until it needs more bytes; positions in a row are stored together. */
  private async read(): Promise<void> {
    const conn = this.connection;
    const batch: PendingPosition[] = [];
    while (conn.reading) {
      const scan = scanGt06Packet(conn.buffered, this.ctx.limits.gt06MaxPacketBytes);
      if (scan.kind === 'incomplete') {
        conn.awaitRestOfMessage();
        break;
      }
      // Copy: the packet is a view into the receive buffer, which the next read replaces.
      const raw = Buffer.from(conn.buffered.subarray(0, scan.consumed));
      conn.consume(scan.consumed);
      // Before the login, its deadline keeps running whatever else arrives.
      if (this.loggedIn) conn.clearDeadline();
      if (!scan.crcOk) {
        conn.badPacket(
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
        conn.badPacket(err.code, err.message);
        continue;
      }
      if (message.kind !== 'login' && !this.loggedIn) {
        conn.badPacket(
          'NOT_LOGGED_IN',
          `protocol 0x${scan.protocol.toString(16)} before a login: the sender is unknown`,
        );
        continue;
      }
      // Positions received together are stored together; anything else waits for them, so the
      // device state (ACC, status) is learnt in the order the device sent it.
      if (batch.length > 0 && (message.kind !== 'position' || batch.length >= MAX_POSITIONS_PER_STORE)) {
        await conn.exclusive(() => this.storePositions(batch.splice(0)));
        if (!conn.reading) break;
      }
      if (message.kind === 'position') {
        const { protocol, serial, long } = scan;
        batch.push({ packet: { protocol, serial, long }, message, raw });
        conn.goodPacket();
        continue;
      }
      await conn.exclusive(() => this.other(message, scan));
    }
    if (batch.length > 0 && conn.reading) await conn.exclusive(() => this.storePositions(batch.splice(0)));
  }

  private async other(message: Exclude<Gt06Message, { kind: 'position' }>, packet: Gt06Packet): Promise<void> {
    const conn = this.connection;
    switch (message.kind) {
      case 'login': {
        conn.clearDeadline();
        if (conn.device !== undefined && conn.device !== message.imei) this.devices.detach(conn.device, conn);
        conn.device = message.imei;
        const access = await conn.lookup(message.imei, { greeting: true });
        if (!access) return;
        const { state, superseded } = this.devices.attach(message.imei, conn);
        this.device = state;
        if (message.utcOffsetMinutes !== undefined) state.loginUtcOffsetMinutes = message.utcOffsetMinutes;
        if (superseded) {
          this.ctx.log.info(
            { ...CHANNEL, device: message.imei, remote: conn.remote, code: 'SESSION_MOVED' },
            'device logged in on a new connection: the old one is closed, its state continues',
          );
          superseded.drain();
        }
        this.loggedIn = true;
        conn.goodPacket();
        this.answer(packet);
        this.ctx.log.debug(
          { ...CHANNEL, device: message.imei, remote: conn.remote, profile: access.profile.name },
          'device logged in',
        );
        return;
      }
      case 'status':
        learn(this.device as Gt06DeviceState, message);
        conn.goodPacket();
        this.answer(packet);
        return;
      case 'commandReply':
        // The answer to a command sent over another channel; the protocol asks for no answer to it.
        conn.goodPacket();
        this.ctx.log.info(
          { ...CHANNEL, device: conn.device, code: 'COMMAND_REPLY', reply: message.text },
          'device replied to a command',
        );
        return;
    }
  }

  private async storePositions(batch: PendingPosition[]): Promise<void> {
    const conn = this.connection;
    const imei = conn.device as string;
    const access = await conn.lookup(imei);
    if (!access) return;
    const device = this.device as Gt06DeviceState;
    const records: Gt06DecodedRecord[] = batch.map((b) => {
      // Built before `learn`: a record without ACC of its own takes what the device said before it.
      const record = gt06PositionToDecoded(imei, b.message, device, access.profile, b.raw);
      learn(device, b.message);
      return record;
    });
    if (!(await conn.store(access.device, records))) return;
    for (const b of batch) this.answer(b.packet);
  }

  private answer(packet: Pick<Gt06Packet, 'protocol' | 'serial' | 'long'>): void {
    this.connection.acknowledge(encodeGt06Response(packet.protocol, packet.serial, packet.long));
  }
}
