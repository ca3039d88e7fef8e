import { connect, type Socket } from 'node:net';
import { readServerPacket } from './gt06-codec.js';

export interface ServerAnswer {
  protocol: number;
  serial: number;
  content: Buffer;
}

/**
 * One TCP connection of an emulated GT06 tracker, read as the device reads it: packets go out,
 * and the server's packets come back one at a time, framed by their start bits and length and
 * checked by their CRC. Bytes that do not make a valid packet are skipped (and counted), never
 * taken for an answer.
 */
export class Gt06Link {
  private buffer = Buffer.alloc(0);
  private wake: (() => void) | undefined;
  private closedReason: string | undefined;
  /** Bytes skipped because they were not a valid server packet. */
  skippedBytes = 0;

  private constructor(private readonly socket: Socket) {
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      this.wake?.();
    });
    socket.on('error', (err) => {
      this.closedReason ??= err.message;
    });
    socket.on('close', () => {
      this.closedReason ??= 'closed by the server';
      this.wake?.();
    });
  }

  static open(host: string, port: number, timeoutMs: number, signal?: AbortSignal): Promise<Gt06Link> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host, port, signal });
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new Error(`no connection to ${host}:${port} within ${timeoutMs} ms`));
      }, timeoutMs);
      socket.once('connect', () => {
        clearTimeout(timer);
        resolve(new Gt06Link(socket));
      });
      socket.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
    });
  }

  get open(): boolean {
    return this.closedReason === undefined && !this.socket.destroyed;
  }

  send(packet: Buffer): void {
    this.socket.write(packet);
  }

  /** The next valid packet from the server, or an error after `timeoutMs` or when the connection ends. */
  async next(timeoutMs: number): Promise<ServerAnswer> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const read = readServerPacket(this.buffer);
      if (read.kind === 'packet') {
        this.buffer = this.buffer.subarray(read.bytes);
        return { protocol: read.protocol, serial: read.serial, content: read.content };
      }
      if (read.kind === 'garbage') {
        this.skippedBytes += read.bytes;
        this.buffer = this.buffer.subarray(read.bytes);
        continue;
      }
      if (this.closedReason !== undefined) throw new Error(`connection lost: ${this.closedReason}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no answer within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = undefined;
    }
  }

  close(): void {
    this.socket.end();
    this.socket.destroy();
  }
}
