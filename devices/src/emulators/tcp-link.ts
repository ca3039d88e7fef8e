import { connect, type Socket } from 'node:net';

/** Where an emulated tracker connects. */
export interface TrackerEndpoint {
  host: string;
  port: number;
  connectTimeoutMs?: number;
}

const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;

/** One answer of the server, as a framing reads it: what it is and how many bytes it took. */
export interface Answer {
  kind: string;
  bytes: number;
}

/**
 * How a tracker recognises the server's answers in the bytes it receives: a whole answer (and how
 * many bytes it took), bytes to skip because they make no valid answer, or not enough bytes yet.
 */
export type Framing<A extends Answer> = (
  buffer: Buffer,
) => A | { kind: 'garbage'; bytes: number } | { kind: 'incomplete' };

/** Answers of a fixed length (Teltonika: 1 byte for the IMEI, 4 for a record count). */
export function fixedLength(bytes: number): Framing<{ kind: 'answer'; bytes: number; data: Buffer }> {
  return (buffer) =>
    buffer.length < bytes
      ? { kind: 'incomplete' }
      : { kind: 'answer', bytes, data: Buffer.from(buffer.subarray(0, bytes)) };
}

/**
 * One TCP connection of an emulated tracker (Teltonika, GT06), read as the device reads it:
 * messages go out, and the server's answers come back one at a time, framed as the protocol frames
 * them; or the device gives up after a timeout or when the server closes. Bytes that do not make a
 * valid answer are skipped (and counted), never taken for one.
 */
export class TcpLink {
  private buffer = Buffer.alloc(0);
  private wake: (() => void) | undefined;
  private closedReason: string | undefined;
  /** Bytes skipped because they were not a valid answer. */
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

  /**
   * Connects and lets the device introduce itself (`introduce`: the IMEI, a login); the link is
   * closed if the introduction fails, so a refused device leaves no half-open connection behind.
   */
  static async open(
    endpoint: TrackerEndpoint,
    signal: AbortSignal | undefined,
    introduce: (link: TcpLink) => Promise<void>,
  ): Promise<TcpLink> {
    const { host, port } = endpoint;
    const timeoutMs = endpoint.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    const link = await new Promise<TcpLink>((resolve, reject) => {
      const socket = connect({ host, port, signal });
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new Error(`no connection to ${host}:${port} within ${timeoutMs} ms`));
      }, timeoutMs);
      socket.once('connect', () => {
        clearTimeout(timer);
        resolve(new TcpLink(socket));
      });
      socket.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
    });
    try {
      await introduce(link);
      return link;
    } catch (err) {
      link.close();
      throw err;
    }
  }

  get open(): boolean {
    return this.closedReason === undefined && !this.socket.destroyed;
  }

  send(message: Buffer): void {
    this.socket.write(message);
  }

  /** The next answer from the server, or an error after `timeoutMs` or when the connection ends. */
  async next<A extends Answer>(framing: Framing<A>, timeoutMs: number): Promise<A> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const read = framing(this.buffer);
      if (read.kind !== 'incomplete') {
        const { bytes } = read as Answer;
        this.buffer = this.buffer.subarray(bytes);
        if (read.kind !== 'garbage') return read as A;
        this.skippedBytes += bytes;
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

  /** Writes `message` and resolves with the next `answerBytes` bytes the server sends. */
  async exchange(message: Buffer, answerBytes: number, timeoutMs: number): Promise<Buffer> {
    this.send(message);
    return (await this.next(fixedLength(answerBytes), timeoutMs)).data;
  }

  close(): void {
    this.socket.end();
    this.socket.destroy();
  }
}
