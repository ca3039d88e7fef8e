import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSystem, type TestSystem } from './support.js';

/**
 * A request refused by the access check never has its body read, and its connection is closed
 * after the answer: otherwise Node drains the body, however long, to keep the connection alive,
 * and an anonymous client could keep a socket and the server's reading busy for ever.
 */
describe('bodies of refused requests', () => {
  let sys: TestSystem;
  beforeAll(async () => {
    sys = await startTestSystem('pglite');
  });
  afterAll(async () => {
    await sys?.stop();
  });

  /** Sends headers, then body chunks every 10 ms until the server closes; resolves with what came back. */
  function endlessUpload(
    path: string,
    token: string | undefined,
  ): Promise<{ response: string; closedAfterMs: number }> {
    const { port } = new URL(sys.url);
    return new Promise((resolve, reject) => {
      const socket: Socket = connect(Number(port), '127.0.0.1');
      let response = '';
      let answeredAt = 0;
      let timer: NodeJS.Timeout | undefined;
      const chunk = `400\r\n${'x'.repeat(0x400)}\r\n`;
      socket.on('connect', () => {
        socket.write(
          `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/csv\r\nTransfer-Encoding: chunked\r\n` +
            `${token ? `Authorization: Bearer ${token}\r\n` : ''}\r\n`,
        );
        timer = setInterval(() => {
          if (!socket.destroyed && socket.writable) socket.write(chunk);
        }, 10);
      });
      socket.on('data', (d) => {
        response += d.toString();
        answeredAt ||= Date.now();
      });
      socket.on('error', () => undefined);
      socket.on('close', () => {
        clearInterval(timer);
        resolve({ response, closedAfterMs: answeredAt ? Date.now() - answeredAt : Number.NaN });
      });
      setTimeout(() => {
        clearInterval(timer);
        socket.destroy();
        reject(new Error(`connection still open after 5 s; received: ${response.slice(0, 200)}`));
      }, 5000);
    });
  }

  it('answers 401 to an anonymous endless upload and closes the connection', async () => {
    const { response, closedAfterMs } = await endlessUpload('/v1/vehicles/import', undefined);
    expect(response).toMatch(/^HTTP\/1\.1 401/);
    expect(response).toContain('MISSING_TOKEN');
    // Closed after the answer (an open connection fails the upload's 5 s guard instead).
    expect(closedAfterMs).toBeGreaterThanOrEqual(0);
  });

  it('answers 401 to an unknown token and closes the connection', async () => {
    const { response, closedAfterMs } = await endlessUpload('/v1/stops/import', 'not-a-token-of-this-system');
    expect(response).toMatch(/^HTTP\/1\.1 401/);
    // Closed after the answer (an open connection fails the upload's 5 s guard instead).
    expect(closedAfterMs).toBeGreaterThanOrEqual(0);
  });
});
