import { connect, type Socket } from 'node:net';

/**
 * One TCP connection of an emulated tracker, read as the device reads it: write a message, then
 * wait for exactly the bytes of the answer, or give up after a timeout or when the server closes.
 */
export class TcpLink {
  private buffer = Buffer.alloc(0);
  private wake: (() => void) | undefined;
  private closedReason: string | undefined;

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

  static open(host: string, port: number, timeoutMs: number, signal?: AbortSignal): Promise<TcpLink> {
    return new Promise((resolve, reject) => {
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
  }

  get open(): boolean {
    return this.closedReason === undefined && !this.socket.destroyed;
  }

  /** Writes `message` and resolves with the next `answerBytes` bytes the server sends. */
  async exchange(message: Buffer, answerBytes: number, timeoutMs: number): Promise<Buffer> {
    this.socket.write(message);
    const deadline = Date.now() + timeoutMs;
    while (this.buffer.length < answerBytes) {
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
    const answer = this.buffer.subarray(0, answerBytes);
    this.buffer = this.buffer.subarray(answerBytes);
    return Buffer.from(answer);
  }

  close(): void {
    this.socket.end();
    this.socket.destroy();
  }
}
