import { request as httpRequest } from 'node:http';
import { FailedAuthLimiter } from '@vigia/core';
import { io } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestSystem, type TestSystem } from './support.js';

/**
 * Issue 8, finding 8 (the HTTP hygiene part): failed authentication is rate limited (REST and the
 * live handshake share one budget), overload is answered 503 OVERLOADED at once, router and
 * parser errors keep the API.md shape, the dashboard carries security headers, /metrics needs a
 * token. Real system on PostgreSQL, real sockets.
 */
const errorShape = { error: { code: expect.any(String), message: expect.any(String) } };
const WRONG = 'not-a-token-0123456789abcdef';

/** A raw GET, so that the URL reaches the server byte for byte (fetch would normalise `/%`). */
function rawGet(
  url: string,
  path: string,
): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: hostname, port, path, method: 'GET' }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => {
        body += c.toString();
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

function handshake(url: string, token: string): Promise<{ code?: string; retryAfterS?: number } | 'connected'> {
  const socket = io(`${url}/live`, { auth: { token }, transports: ['websocket'], reconnection: false });
  return new Promise((resolve) => {
    socket.on('connect', () => {
      socket.close();
      resolve('connected');
    });
    socket.on('connect_error', (err: Error & { data?: { code?: string; retryAfterS?: number } }) => {
      socket.close();
      resolve(err.data ?? {});
    });
  });
}

describe('failed authentication is rate limited per address', () => {
  let sys: TestSystem;
  beforeAll(async () => {
    sys = await startTestSystem('postgres', {
      AUTH_FAILURE_LIMIT: '5',
      AUTH_FAILURE_WINDOW_S: '60',
    });
  });
  afterAll(async () => {
    await sys?.stop();
  });

  it('successes never count; past 5 failures REST and the handshake answer 429 with Retry-After', async () => {
    for (let i = 0; i < 30; i++) expect((await api(sys, 'GET', '/v1/vehicles?limit=1')).status).toBe(200);
    // Two failures through the live handshake, three through REST: one budget.
    for (let i = 0; i < 2; i++) expect(await handshake(sys.url, WRONG)).toEqual({ code: 'INVALID_TOKEN' });
    for (let i = 0; i < 3; i++) {
      const res = await api(sys, 'GET', '/v1/vehicles?limit=1', undefined, WRONG);
      expect(res.status).toBe(401);
    }
    const refused = await api(sys, 'GET', '/v1/vehicles?limit=1', undefined, WRONG);
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ error: { code: 'TOO_MANY_FAILED_LOGINS', message: expect.any(String) } });
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // The address is refused before its token is looked up, so a guess that happens to be right learns nothing.
    expect((await api(sys, 'GET', '/v1/vehicles?limit=1')).status).toBe(429);
    const live = await handshake(sys.url, sys.adminToken);
    expect(live).toMatchObject({ code: 'TOO_MANY_FAILED_LOGINS' });
    // Public routes stay open.
    expect((await api(sys, 'GET', '/health', undefined, null)).status).toBe(200);
  });

  it('the limiter forgets a window when it ends and holds a bounded number of addresses', () => {
    let now = 0;
    const limiter = new FailedAuthLimiter({ max: 3, windowMs: 1000, maxAddresses: 100 }, () => now);
    for (let i = 0; i < 3; i++) limiter.fail('10.0.0.1');
    expect(limiter.retryAfterS('10.0.0.1')).toBe(1);
    expect(limiter.retryAfterS('10.0.0.2')).toBeUndefined();
    now = 1000;
    expect(limiter.retryAfterS('10.0.0.1')).toBeUndefined();
    for (let i = 0; i < 100_000; i++) limiter.fail(`192.168.${i >> 8}.${i & 255}`);
    expect(limiter.size).toBeLessThanOrEqual(100);
  });
});

describe('overload is answered 503 OVERLOADED, /health keeps answering', () => {
  let sys: TestSystem;
  beforeAll(async () => {
    sys = await startTestSystem('postgres', {
      OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '100',
    });
  });
  afterAll(async () => {
    await sys?.stop();
  });

  /**
   * Keeps the event loop the server runs on (this test shares it) busy for `totalMs`, in turns of
   * `turnMs` with a yield between (sustained CPU-bound load, as under a burst of large requests),
   * and sends `probe()` at every turn: the requests are served in the yields, as they would be.
   */
  async function saturate<T>(totalMs: number, turnMs: number, probe: () => Promise<T>): Promise<T[]> {
    const sent: Promise<T>[] = [];
    const end = Date.now() + totalMs;
    while (Date.now() < end) {
      sent.push(probe());
      const until = Date.now() + turnMs;
      while (Date.now() < until) {
        // busy: nothing else runs during a turn
      }
      await new Promise((r) => setImmediate(r));
    }
    return Promise.all(sent);
  }

  it('under normal load nothing is refused, even with the threshold at 100 ms', async () => {
    for (let round = 0; round < 3; round++) {
      const results = await Promise.all(
        Array.from({ length: 50 }, () => api(sys, 'GET', '/v1/vehicles?limit=5').then((r) => r.status)),
      );
      expect(results.filter((s) => s !== 200)).toEqual([]);
      await new Promise((r) => setTimeout(r, 400));
    }
  });

  it('under sustained load requests get 503 OVERLOADED with Retry-After at once, /health 200, /ready overloaded', async () => {
    // 2.5 s of load holds at least one whole 1 s sample of the event-loop delay.
    const probes = await saturate(2500, 150, async () => {
      const started = Date.now();
      const [data, health, ready] = await Promise.all([
        api(sys, 'GET', '/v1/vehicles?limit=1'),
        api(sys, 'GET', '/health', undefined, null),
        api<{ status: string }>(sys, 'GET', '/ready', undefined, null),
      ]);
      return { data, health, ready, ms: Date.now() - started };
    });
    const shed = probes.filter((p) => p.data.status === 503);
    expect(shed.length).toBeGreaterThan(0);
    expect(probes.every((p) => p.data.status === 200 || p.data.status === 503)).toBe(true);
    for (const p of shed) {
      expect(p.data.body).toMatchObject({ error: { code: 'OVERLOADED', message: expect.any(String) } });
      expect(Number(p.data.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    // /health answers throughout; /ready says why it is not ready.
    expect(probes.map((p) => p.health.status).filter((s) => s !== 200)).toEqual([]);
    expect(probes.some((p) => p.ready.status === 503 && p.ready.body.status === 'overloaded')).toBe(true);
    // And it recovers by itself once the loop is calm again.
    const recovered = Date.now() + 5000;
    let status = 0;
    while (status !== 200 && Date.now() < recovered) {
      await new Promise((r) => setTimeout(r, 200));
      status = (await api(sys, 'GET', '/v1/vehicles?limit=1')).status;
    }
    expect(status).toBe(200);
  });
});

describe('router and parser errors, dashboard headers, /metrics', () => {
  let sys: TestSystem;
  let withMetricsToken: TestSystem;
  const METRICS = 'scraper-token-0123456789abcdef';
  beforeAll(async () => {
    [sys, withMetricsToken] = await Promise.all([
      startTestSystem('postgres', {
        MAP_STYLE_URL: 'https://tiles.example.org/styles/basic.json',
      }),
      startTestSystem('postgres', {
        METRICS_TOKEN: METRICS,
      }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([sys?.stop(), withMetricsToken?.stop()]);
  });

  it('a malformed percent-encoding is 400 BAD_URL in the error shape', async () => {
    for (const path of ['/%', '/v1/vehicles/%E0%A4%A', '/v1/vehicles/%zz']) {
      const res = await rawGet(sys.url, path);
      expect(res.status, path).toBe(400);
      expect(JSON.parse(res.body), path).toMatchObject({ error: { code: 'BAD_URL', message: expect.any(String) } });
    }
  });

  it('an over-long path parameter is 414 URI_TOO_LONG, oversized headers 431, both in the error shape', async () => {
    const longParam = await rawGet(sys.url, `/v1/vehicles/${'a'.repeat(500)}`);
    expect(longParam.status).toBe(414);
    expect(JSON.parse(longParam.body)).toMatchObject({ error: { code: 'URI_TOO_LONG' } });
    const huge = await rawGet(sys.url, `/v1/vehicles?q=${'a'.repeat(40_000)}`);
    expect(huge.status).toBe(431);
    expect(JSON.parse(huge.body)).toMatchObject({ error: { code: 'HEADERS_TOO_LARGE', message: expect.any(String) } });
    // The server is still there.
    expect((await api(sys, 'GET', '/health', undefined, null)).status).toBe(200);
  });

  it('the dashboard page carries a CSP (MapLibre, the live channel, the map style origin), nosniff and no framing', async () => {
    const res = await fetch(`${sys.url}/`);
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toMatch(/worker-src 'self' blob:/);
    expect(csp).toMatch(/img-src [^;]*data: blob:[^;]*https:\/\/tiles\.example\.org/);
    expect(csp).toMatch(/connect-src [^;]*ws: wss:[^;]*https:\/\/tiles\.example\.org/);
    expect(csp).not.toContain('unsafe-eval');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
  });

  it('/metrics: admin only when METRICS_TOKEN is unset', async () => {
    const none = await api(sys, 'GET', '/metrics', undefined, null);
    expect(none.status).toBe(401);
    expect(none.body).toMatchObject(errorShape);
    const user = await api<{ token: string }>(sys, 'POST', '/v1/users', { name: 'Reg', role: 'regulator' });
    expect((await api(sys, 'GET', '/metrics', undefined, user.body.token)).status).toBe(403);
    const admin = await fetch(`${sys.url}/metrics`, { headers: { authorization: `Bearer ${sys.adminToken}` } });
    expect(admin.headers.get('content-type')).toContain('text/plain');
    expect(admin.status).toBe(200);
    expect(await admin.text()).toContain('# TYPE');
  });

  it('/metrics: METRICS_TOKEN or the admin token when set, and the metrics token opens nothing else', async () => {
    const scraper = await fetch(`${withMetricsToken.url}/metrics`, { headers: { authorization: `Bearer ${METRICS}` } });
    expect(scraper.status).toBe(200);
    expect(await scraper.text()).toContain('# TYPE');
    const admin = await fetch(`${withMetricsToken.url}/metrics`, {
      headers: { authorization: `Bearer ${withMetricsToken.adminToken}` },
    });
    expect(admin.status).toBe(200);
    expect((await api(withMetricsToken, 'GET', '/metrics', undefined, null)).status).toBe(401);
    expect((await api(withMetricsToken, 'GET', '/metrics', undefined, WRONG)).status).toBe(401);
    expect((await api(withMetricsToken, 'GET', '/v1/vehicles', undefined, METRICS)).status).toBe(401);
  });
});
