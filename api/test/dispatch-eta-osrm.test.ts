import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { loadConfig } from '@vigia/core';
import { openPglite } from '@vigia/db';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LatLon, TravelTimeEstimator } from '../src/dispatch/dispatch-ports.js';
import { OsrmTravelTimes } from '../src/dispatch/osrm-travel-times.js';
import { createTravelTimes } from '../src/dispatch/travel-times.js';

/**
 * OSRM itself cannot run here (no road graph, no binary): this local server answering the Table
 * service's format (https://project-osrm.org/docs/v5.24.0/api/#table-service) is the contract the
 * adapter is held to. `mode` picks how it answers the next requests.
 */

const PICKUP = { lat: -15.7942, lon: -47.8822 };
const fallback: TravelTimeEstimator = {
  name: 'history',
  async estimate(origins) {
    return origins.map(() => 999);
  },
};

describe('OSRM travel times', () => {
  let server: Server;
  let baseUrl: string;
  const requests: URL[] = [];
  let mode = 0;
  const lines: { code?: string; msg?: string }[] = [];
  const log = pino(
    { level: 'warn' },
    new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const l of chunk.toString().split('\n')) if (l.trim()) lines.push(JSON.parse(l));
        done();
      },
    }),
  );

  beforeAll(async () => {
    server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://osrm');
      requests.push(url);
      const coords = decodeURIComponent(url.pathname.split('/')[4] ?? '')
        .split(';')
        .map((c) => c.split(',').map(Number));
      const sources = (url.searchParams.get('sources') ?? '').split(';').map(Number);
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (mode === 1) return; // never answers: the adapter's timeout
      if (mode === 2) return send(400, { code: 'InvalidQuery', message: 'Query string malformed' });
      if (mode === 3) return send(200, { code: 'Ok', durations: [[1]] }); // wrong shape
      // Ok: 60 s per source index + 60, the second source unreachable when mode 4.
      send(200, {
        code: 'Ok',
        durations: sources.map((i) => [mode === 4 && i === 1 ? null : 60 * (i + 1)]),
        sources: sources.map((i) => ({ location: coords[i], name: '' })),
        destinations: [{ location: coords[coords.length - 1], name: '' }],
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  const origins = (answer: number): LatLon[] => {
    mode = answer;
    return [
      { lat: -15.8, lon: -47.9 },
      { lat: -15.81, lon: -47.91 },
      { lat: -15.82, lon: -47.92 },
    ];
  };
  const osrm = () => new OsrmTravelTimes({ baseUrl, timeoutMs: 300, fallback, log });

  it('asks one Table request (taxis as sources, pickup as destination) and reads its durations', async () => {
    requests.length = 0;
    expect(await osrm().estimate(origins(0), PICKUP, new Date())).toEqual([60, 120, 180]);
    expect(requests).toHaveLength(1);
    const url = requests[0] as URL;
    expect(url.pathname).toBe(
      '/table/v1/driving/-47.900000,-15.800000;-47.910000,-15.810000;-47.920000,-15.820000;-47.882200,-15.794200',
    );
    expect(url.searchParams.get('sources')).toBe('0;1;2');
    expect(url.searchParams.get('destinations')).toBe('3');
    expect(url.searchParams.get('annotations')).toBe('duration');
  });

  it('falls back for a pair without a route, and for the whole request on a timeout, a refusal or a bad answer', async () => {
    expect(await osrm().estimate(origins(4), PICKUP, new Date())).toEqual([60, 999, 180]);
    lines.length = 0;
    const started = Date.now();
    expect(await osrm().estimate(origins(1), PICKUP, new Date())).toEqual([999, 999, 999]);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await osrm().estimate(origins(2), PICKUP, new Date())).toEqual([999, 999, 999]);
    expect(await osrm().estimate(origins(3), PICKUP, new Date())).toEqual([999, 999, 999]);
    expect(lines.map((l) => l.code)).toEqual(['ROUTING_TIMEOUT', 'ROUTING_REFUSED', 'ROUTING_BAD_RESPONSE']);
  });

  it('falls back when nothing listens', async () => {
    const down = new OsrmTravelTimes({ baseUrl: 'http://127.0.0.1:1', timeoutMs: 300, fallback, log });
    lines.length = 0;
    expect(await down.estimate(origins(0), PICKUP, new Date())).toEqual([999, 999, 999]);
    expect(lines.map((l) => l.code)).toEqual(['ROUTING_UNREACHABLE']);
  });

  it('is chosen by ROUTING_URL, with the history model behind it; unset: the history model alone', async () => {
    const db = await openPglite(undefined);
    try {
      const routed = createTravelTimes(loadConfig({ ROUTING_URL: baseUrl }), db, log);
      expect(routed.estimator.name).toBe('osrm');
      expect(routed.estimator).toBeInstanceOf(OsrmTravelTimes);
      mode = 1; // a server that never answers: the history estimate (straight line, nothing learnt yet)
      const [eta] = await routed.estimator.estimate([{ lat: -15.8, lon: -47.9 }], PICKUP, new Date());
      const [history] = await routed.history.estimate([{ lat: -15.8, lon: -47.9 }], PICKUP, new Date());
      expect(eta).toBeCloseTo(history as number, 6);
      expect(createTravelTimes(loadConfig({}), db, log).estimator.name).toBe('history');
    } finally {
      await db.close();
    }
  });
});
