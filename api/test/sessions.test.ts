import { randomBytes } from 'node:crypto';
import { io, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ProcessPair, startProcessPair } from './process-pair.js';
import { api, startTestSystem, type TestSystem, waitFor } from './support.js';

/**
 * Issue 8, finding 6: a retired user, or a user whose token was rotated, loses its live feed and
 * is refused by REST at once, although user lookups are cached for ten minutes here
 * (DEVICE_CACHE_TTL_MS): the registry's bus message drops the cache and re-checks sockets. "At
 * once" is shown by the cache, not by a stopwatch: within the tests' waits (seconds) only the bus
 * can end a session that the cache would keep for ten minutes.
 */
const CACHE_TTL = '600000';

interface Live {
  socket: Socket;
  disconnected(): boolean;
  reason(): string | undefined;
}

const sockets: Socket[] = [];

function connect(url: string, token: string): Promise<Live> {
  const socket = io(`${url}/live`, { auth: { token }, transports: ['websocket'], reconnection: false });
  sockets.push(socket);
  let gone = false;
  let why: string | undefined;
  socket.on('disconnect', (reason) => {
    gone = true;
    why = reason;
  });
  return new Promise((resolve, reject) => {
    socket.on('connect', () => resolve({ socket, disconnected: () => gone, reason: () => why }));
    socket.on('connect_error', reject);
  });
}

async function createUser(
  sys: TestSystem,
  role: string,
  operatorIds: string[] = [],
): Promise<{ id: string; token: string }> {
  const res = await api<{ id: string; token: string }>(sys, 'POST', '/v1/users', {
    name: `User ${randomBytes(3).toString('hex')}`,
    role,
    operatorIds,
  });
  expect(res.status).toBe(201);
  return res.body;
}

/** Polls a REST read with `token` until it is refused (well before the cache would let it go). */
async function untilRefused(sys: { url: string; adminToken: string }, token: string): Promise<void> {
  await waitFor('the token refused', async () => {
    const res = await api(sys, 'GET', '/v1/vehicles?limit=1', undefined, token);
    return res.status === 401 ? true : undefined;
  });
}

afterAll(() => {
  for (const s of sockets) s.close();
});

describe('sessions end with the user (in-process bus)', () => {
  let sys: TestSystem;
  beforeAll(async () => {
    sys = await startTestSystem('postgres', {
      DEVICE_CACHE_TTL_MS: CACHE_TTL,
    });
  });
  afterAll(async () => {
    await sys?.stop();
  });

  it('retiring a user disconnects its sockets and REST refuses its token at once; others stay', async () => {
    const doomed = await createUser(sys, 'regulator');
    const bystander = await createUser(sys, 'enforcement');
    // Warm the cache: before the fix the cached principal would be served for a minute.
    expect((await api(sys, 'GET', '/v1/vehicles?limit=1', undefined, doomed.token)).status).toBe(200);
    const a = await connect(sys.url, doomed.token);
    const b = await connect(sys.url, doomed.token);
    const other = await connect(sys.url, bystander.token);

    expect((await api(sys, 'DELETE', `/v1/users/${doomed.id}`)).status).toBe(200);
    for (const live of [a, b]) {
      await waitFor('the socket disconnected', () => live.disconnected());
      expect(live.reason()).toBe('io server disconnect');
    }
    await untilRefused(sys, doomed.token);
    // And it cannot come back.
    await expect(connect(sys.url, doomed.token)).rejects.toThrow(/INVALID_TOKEN/);
    expect(other.socket.connected).toBe(true);
    expect((await api(sys, 'GET', '/v1/vehicles?limit=1', undefined, bystander.token)).status).toBe(200);
  });

  it('rotating a token disconnects the sockets admitted with the old one; the new one works', async () => {
    const user = await createUser(sys, 'operator', ['op-sessions-1']);
    const oldToken = user.token;
    expect((await api(sys, 'GET', '/v1/vehicles?limit=1', undefined, oldToken)).status).toBe(200);
    const live = await connect(sys.url, oldToken);

    const rotated = await api<{ token: string }>(sys, 'POST', `/v1/users/${user.id}/token`);
    expect(rotated.status).toBe(200);
    await waitFor('the socket disconnected', () => live.disconnected());
    await untilRefused(sys, oldToken);

    expect((await api(sys, 'GET', '/v1/vehicles?limit=1', undefined, rotated.body.token)).status).toBe(200);
    const again = await connect(sys.url, rotated.body.token);
    expect(again.socket.connected).toBe(true);
  });
});

describe('sessions end with the user in every API process (Redis bus)', () => {
  let pair: ProcessPair;

  beforeAll(async () => {
    pair = await startProcessPair({ shared: { DEVICE_CACHE_TTL_MS: CACHE_TTL } });
  });
  afterAll(async () => {
    await pair?.stop();
  });

  it('a user retired through process A loses its feed and its REST access on process B', async () => {
    const { a, b, procB } = pair;
    const user = await createUser(a, 'regulator');
    expect((await api(procB, 'GET', '/v1/vehicles?limit=1', undefined, user.token)).status).toBe(200);
    const onB = await connect(b.url, user.token);
    const onA = await connect(a.url, user.token);

    expect((await api(a, 'DELETE', `/v1/users/${user.id}`)).status).toBe(200);
    for (const live of [onA, onB]) await waitFor('the socket disconnected', () => live.disconnected());
    await untilRefused(procB, user.token);
  });
});
