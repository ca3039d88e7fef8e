import { connect, type Socket } from 'node:net';
import {
  type AvlRecord,
  CODEC_8_EXTENDED,
  encodeImeiHandshake,
  encodeTcpFrame,
  type IoElement,
} from '../../../src/gateways/index.js';

/**
 * A scripted Teltonika device on a real TCP connection: it writes exactly the bytes a test gives
 * it and records every byte the gateway answers, so a test can say "nothing came back".
 */
export class TestDevice {
  private received = Buffer.alloc(0);
  private waiters: (() => void)[] = [];
  private isClosed = false;
  readonly closed: Promise<void>;

  private constructor(readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.received = Buffer.concat([this.received, chunk]);
      this.wake();
    });
    socket.on('error', () => {});
    this.closed = new Promise((resolve) =>
      socket.once('close', () => {
        this.isClosed = true;
        this.wake();
        resolve();
      }),
    );
  }

  static async connect(port: number): Promise<TestDevice> {
    const socket = connect({ port, host: '127.0.0.1' });
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    return new TestDevice(socket);
  }

  get open(): boolean {
    return !this.isClosed;
  }

  write(bytes: Buffer): void {
    this.socket.write(bytes);
  }

  /** The next `n` bytes from the gateway; fails if they do not come within `timeoutMs`. */
  async read(n: number, timeoutMs = 5_000): Promise<Buffer> {
    const deadline = Date.now() + timeoutMs;
    while (this.received.length < n) {
      if (this.isClosed) throw new Error(`connection closed after ${this.received.length}/${n} bytes`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no ${n} bytes within ${timeoutMs} ms (got ${this.received.length})`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
    const out = this.received.subarray(0, n);
    this.received = this.received.subarray(n);
    return Buffer.from(out);
  }

  /** Bytes received and not yet read. */
  get unread(): Buffer {
    return Buffer.from(this.received);
  }

  async handshake(imei: string): Promise<number> {
    this.write(encodeImeiHandshake(imei));
    return (await this.read(1))[0] as number;
  }

  /** Sends a packet and returns the record count the gateway acknowledged. */
  async send(frame: Buffer, timeoutMs = 5_000): Promise<number> {
    this.write(frame);
    return (await this.read(4, timeoutMs)).readUInt32BE(0);
  }

  /** Resolves when the gateway closes the connection; fails after `timeoutMs`. */
  async waitClosed(timeoutMs = 5_000): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.closed,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`still open after ${timeoutMs} ms`)), timeoutMs);
      }),
    ]).finally(() => clearTimeout(timer));
  }

  destroy(): void {
    this.socket.destroy();
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }
}

/** Sleeps; for "nothing arrives within" checks. */
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export const int = (id: number, bytes: 1 | 2 | 4 | 8, value: number | bigint): IoElement => ({
  id,
  kind: 'int',
  bytes,
  value: BigInt(value),
});

export const text = (id: number, value: string): IoElement => ({
  id,
  kind: 'bytes',
  value: Buffer.from(value, 'ascii'),
});

/** A record with a good fix over Brasília at `tsMs`, with the given IO elements. */
export function fixRecord(tsMs: number, io: IoElement[] = [], over: Partial<AvlRecord['gps']> = {}): AvlRecord {
  return {
    timestampMs: tsMs,
    priority: 0,
    gps: {
      longitude: -47.8822,
      latitude: -15.7942,
      altitudeM: 1100,
      angleDeg: 90,
      satellites: 12,
      speedKmh: 32,
      ...over,
    },
    eventIoId: 0,
    io,
  };
}

export const frameOf = (records: AvlRecord[]) => encodeTcpFrame(CODEC_8_EXTENDED, records);
