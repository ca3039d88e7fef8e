import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { api, registerVehicle, startTestSystem, type TestSystem } from '../../api/test/support.js';
import { connectFrame, type Frame, PONG_FRAME, parseFrame, socketIoUrl } from '../k6/lib/socket-io.js';

/**
 * k6 has no Socket.IO client and cannot be installed here, so the framing the k6 live script
 * speaks over plain WebSocket (load/k6/lib/socket-io.ts) is checked against the real server with
 * a plain WebSocket from Node: admitted to `/live` with a token, refused without a good one, and
 * a sample's `fleet` update read back.
 */

interface RawSocket {
  frames: Frame[];
  next(test: (f: Frame) => boolean, timeoutMs?: number): Promise<Frame>;
  close(): void;
}

/** A WebSocket on the server's Socket.IO endpoint that joins `/live` with `token` once opened. */
function rawLive(url: string, token: string): RawSocket {
  const ws = new WebSocket(socketIoUrl(url));
  const frames: Frame[] = [];
  const waiters: { test: (f: Frame) => boolean; resolve: (f: Frame) => void }[] = [];
  ws.on('message', (data: WebSocket.RawData) => {
    const frame = parseFrame(data.toString());
    frames.push(frame);
    if (frame.kind === 'open') ws.send(connectFrame('/live', { token }));
    if (frame.kind === 'ping') ws.send(PONG_FRAME);
    for (const w of [...waiters]) {
      if (w.test(frame)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(frame);
      }
    }
  });
  return {
    frames,
    next(test, timeoutMs = 5000) {
      const seen = frames.find(test);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no such frame; got ${JSON.stringify(frames)}`)), timeoutMs);
        waiters.push({
          test,
          resolve: (f) => {
            clearTimeout(timer);
            resolve(f);
          },
        });
      });
    },
    close: () => ws.close(),
  };
}

describe('the k6 live script’s Socket.IO framing, against the real /live', () => {
  let sys: TestSystem;
  beforeAll(async () => {
    sys = await startTestSystem('pglite', { LIVE_PUSH_INTERVAL_MS: '100' });
  });
  afterAll(async () => {
    await sys?.stop();
  });

  it('parses the frames it needs', () => {
    expect(parseFrame('2')).toEqual({ kind: 'ping' });
    expect(parseFrame('0{"sid":"x","pingInterval":25000}')).toEqual({ kind: 'open' });
    expect(parseFrame('40/live,{"sid":"abc"}')).toEqual({ kind: 'connected', nsp: '/live' });
    expect(parseFrame('44/live,{"message":"UNAUTHORIZED"}')).toEqual({
      kind: 'refused',
      nsp: '/live',
      message: 'UNAUTHORIZED',
    });
    expect(parseFrame('42/live,["fleet",[{"vehicleId":"v1"}]]')).toEqual({
      kind: 'event',
      nsp: '/live',
      name: 'fleet',
      args: [[{ vehicleId: 'v1' }]],
    });
    expect(parseFrame('42/live,not json')).toEqual({ kind: 'other' });
    expect(socketIoUrl('https://vigia.example')).toBe('wss://vigia.example/socket.io/?EIO=4&transport=websocket');
  });

  it('is admitted with the admin token and reads a sample’s fleet update', async () => {
    const socket = rawLive(sys.url, sys.adminToken);
    try {
      await socket.next((f) => f.kind === 'connected' && f.nsp === '/live');
      const taxi = await registerVehicle(sys);
      const ts = new Date().toISOString();
      const sent = await api(sys, 'POST', '/v1/telemetry', { deviceId: taxi.identifier, ts, lat: -15.79, lon: -47.88 });
      expect(sent.status).toBe(200);
      const event = await socket.next(
        (f) =>
          f.kind === 'event' &&
          f.name === 'fleet' &&
          Array.isArray(f.args[0]) &&
          f.args[0].some((u: { vehicleId?: string }) => u.vehicleId === taxi.vehicleId),
      );
      expect(event.kind === 'event' && event.args[0]).toEqual(
        expect.arrayContaining([expect.objectContaining({ vehicleId: taxi.vehicleId, ts })]),
      );
    } finally {
      socket.close();
    }
  });

  it('is refused with a token that is not one', async () => {
    const socket = rawLive(sys.url, 'not-a-token-0123456789');
    try {
      const refused = await socket.next((f) => f.kind === 'refused');
      expect(refused).toMatchObject({ kind: 'refused', nsp: '/live' });
    } finally {
      socket.close();
    }
  });
});
