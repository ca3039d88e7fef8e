import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lockTelemetry, type Pipeline, startPipeline } from './support/pipeline.js';

/**
 * The OsmAnd gateway over real HTTP into a real PostgreSQL, with requests shaped as Traccar Client
 * sends them (query form: Android; JSON form: the background-geolocation client) and as Traccar's
 * own decoder tests write them.
 */

let p: Pipeline;
let base: string;
const HTTP = { protocol: 'osmand', transport: 'http' };
/** An hour ago, on a whole second. */
const T0 = Math.floor(Date.now() / 1000) * 1000 - 3_600_000;
const T0_S = T0 / 1000;

beforeAll(async () => {
  p = await startPipeline();
  base = `http://127.0.0.1:${p.gateways.osmandPort}`;
  await p.registerDevice({ id: 'dev-phone', identifier: '48241179', protocol: 'osmand' });
  await p.registerDevice({
    id: 'dev-taxi-app',
    identifier: 'SIM-DF-0001',
    protocol: 'osmand',
    profile: 'osmand-traccar-client',
  });
  await p.registerDevice({ id: 'dev-native', identifier: 'SIM-DF-0002', protocol: 'native' });
});

afterAll(async () => {
  await p?.close();
});

const get = (query: string) => fetch(`${base}/?${query}`);
const postJson = (body: unknown) =>
  fetch(`${base}/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const badInput = (reason: string) => p.gateways.metrics.value('badInput', { ...HTTP, reason });

describe('query form', () => {
  it('stores a Traccar Client position (POST, parameters in the URL, empty body) and answers 200 with no body', async () => {
    const res = await fetch(
      `${base}/?id=48241179&timestamp=${T0_S}&lat=-15.7942&lon=-47.8822&speed=10.0&bearing=271.5&altitude=1172.0&accuracy=6.5&batt=87.0`,
      { method: 'POST' },
    );
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('');
    const [row] = await p.rows('dev-phone');
    // Speed comes in knots: 10 kn = 18.52 km/h.
    expect(row).toMatchObject({ lat: -15.7942, lon: -47.8822, heading_deg: 271.5, accuracy_m: 6.5 });
    expect(row?.ts.getTime()).toBe(T0);
    expect(row?.speed_kmh).toBeCloseTo(18.52, 4);
  });

  it('takes the timestamp as epoch seconds, epoch milliseconds or ISO 8601 with a zone', async () => {
    const cases = [
      [`${T0_S + 1}`, T0 + 1000],
      [`${T0 + 2500}`, T0 + 2500],
      [encodeURIComponent(new Date(T0 + 3000).toISOString()), T0 + 3000],
      [encodeURIComponent(new Date(T0 + 4000).toISOString().replace('Z', '+00:00')), T0 + 4000],
      [encodeURIComponent(`${new Date(T0 + 5000 - 3 * 3_600_000).toISOString().slice(0, 19)}-03:00`), T0 + 5000],
    ] as const;
    for (const [timestamp] of cases) {
      const res = await get(`id=48241179&lat=-15.8&lon=-47.9&timestamp=${timestamp}`);
      expect(res.status, timestamp).toBe(200);
    }
    const stored = (await p.rows('dev-phone')).map((r) => r.ts.getTime());
    for (const [, ms] of cases) expect(stored).toContain(ms);
  });

  it('refuses a time without a zone, naming the problem', async () => {
    const res = await get(`id=48241179&lat=-15.8&lon=-47.9&timestamp=2026-11-29+09%3A10%3A11`);
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/no time zone/);
  });

  it('takes location=lat,lon, deviceid= and the parameters in an urlencoded body', async () => {
    let res = await get(`deviceid=48241179&timestamp=${T0_S + 10}&location=-15.81,-47.91`);
    expect(res.status).toBe(200);
    res = await fetch(`${base}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `id=48241179&timestamp=${T0_S + 11}&lat=-15.82&lon=-47.92`,
    });
    expect(res.status).toBe(200);
    const rows = await p.rows('dev-phone');
    expect(rows.find((r) => r.ts.getTime() === T0 + 10_000)).toMatchObject({ lat: -15.81, lon: -47.91 });
    expect(rows.find((r) => r.ts.getTime() === T0 + 11_000)).toMatchObject({ lat: -15.82, lon: -47.92 });
  });

  it('maps the app attributes through the profile (meter, tariff, fare, trip, occupancy, door, driver)', async () => {
    const res = await get(
      `id=SIM-DF-0001&timestamp=${T0_S}&lat=-15.79&lon=-47.88&speed=0&meter=ocupado&tariff=2&fare=1250&trip=DF-0001-T00012` +
        `&passengers=2&children=1&door=false&ignition=true&driverUniqueId=sim-drv-df-0001-1&tachoSpeed=31.5`,
    );
    expect(res.status).toBe(200);
    const [row] = await p.rows('dev-taxi-app');
    expect(row).toMatchObject({
      meter_state: 'hired',
      meter_tariff: 2,
      meter_fare_cents: 1250,
      meter_trip_id: 'DF-0001-T00012',
      passengers: 2,
      children_under7: 1,
      door_open: false,
      ignition: true,
      tacho_driver_id: 'sim-drv-df-0001-1',
      tacho_speed_kmh: 31.5,
    });
  });

  it('answers an unknown id with 400, as Traccar does, and logs and counts it', async () => {
    const res = await get(`id=123456&timestamp=${T0_S}&lat=60.0&lon=30.0`);
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/UNKNOWN_DEVICE/);
    expect(await badInput('unknown_device')).toBe(1);
    expect(p.logs.some((l) => l.code === 'UNKNOWN_DEVICE' && l.device === '123456')).toBe(true);
  });

  it('refuses the id of a device registered for another protocol: it authenticates with its token', async () => {
    const res = await get(`id=SIM-DF-0002&timestamp=${T0_S}&lat=-15.8&lon=-47.9`);
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/PROTOCOL_MISMATCH/);
    expect(await p.rows('dev-native')).toEqual([]);
  });

  it('refuses a request without id or without a position', async () => {
    expect((await get(`timestamp=${T0_S}&lat=60.0&lon=30.0`)).status).toBe(400);
    expect(await badInput('missing_device_id')).toBe(1);
    const res = await get(`id=48241179&timestamp=${T0_S}`);
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/NO_POSITION/);
  });
});

describe('absurd values', () => {
  it('refuses latitude 200, a time years ahead, 0,0 and a speed of 5 000 km/h; stores none of them', async () => {
    await p.registerDevice({ id: 'dev-absurd', identifier: 'ABSURD-1', protocol: 'osmand' });
    const yearsAhead = Math.floor(Date.now() / 1000) + 3 * 365 * 86_400;
    const cases = [
      [`lat=200&lon=-47.9&timestamp=${T0_S}`, 'INVALID_FIX'],
      [`lat=-15.8&lon=-47.9&timestamp=${yearsAhead}`, 'FUTURE_TIMESTAMP'],
      [`lat=0&lon=0&timestamp=${T0_S}`, 'NO_POSITION'],
      [`lat=-15.8&lon=-47.9&timestamp=${T0_S}&speed=2700`, 'INVALID_FIX'],
      [`lat=-15.8&lon=abc&timestamp=${T0_S}`, 'INVALID_REQUEST'],
    ] as const;
    for (const [query, code] of cases) {
      const res = await get(`id=ABSURD-1&${query}`);
      expect(res.status, query).toBe(400);
      expect(await res.text(), query).toMatch(new RegExp(code));
    }
    expect(await p.rows('dev-absurd')).toEqual([]);
    expect(await p.gateways.metrics.value('rejected', { ...HTTP, reason: 'future_timestamp' })).toBe(1);
  });

  it('leaves out an impossible attribute (9 999 passengers) but keeps the position', async () => {
    await p.registerDevice({ id: 'dev-count', identifier: 'COUNT-1', protocol: 'osmand' });
    const res = await get(`id=COUNT-1&lat=-15.8&lon=-47.9&timestamp=${T0_S}&passengers=9999&meter=flying&door=1`);
    expect(res.status).toBe(200);
    const [row] = await p.rows('dev-count');
    expect(row).toMatchObject({ lat: -15.8, passengers: null, meter_state: null, door_open: true });
    expect(await p.gateways.metrics.value('droppedFields', { ...HTTP, field: 'passengers' })).toBe(1);
    expect(await p.gateways.metrics.value('droppedFields', { ...HTTP, field: 'meter.state' })).toBe(1);
  });
});

describe('JSON form', () => {
  it('stores the newer Traccar Client body: speed in m/s, -1 for unknown heading, extras through the profile', async () => {
    const res = await postJson({
      location: {
        timestamp: new Date(T0 + 60_000).toISOString(),
        coords: { latitude: -15.7799, longitude: -47.9297, accuracy: 5, speed: 10, heading: -1, altitude: 1100 },
        is_moving: true,
        odometer: 1234,
        event: 'motionchange',
        battery: { level: 0.79, is_charging: false },
        activity: { type: 'in_vehicle' },
        extras: { meter: 'hired', tariff: 1, fare: 780, passengers: 1, door: false },
        _: '&id=SIM-DF-0001&lat=-15.7799&lon=-47.9297&timestamp=...&',
      },
      device_id: 'SIM-DF-0001',
    });
    expect(res.status).toBe(200);
    const row = (await p.rows('dev-taxi-app')).find((r) => r.ts.getTime() === T0 + 60_000);
    expect(row).toMatchObject({
      lat: -15.7799,
      lon: -47.9297,
      speed_kmh: 36,
      heading_deg: null,
      accuracy_m: 5,
      meter_state: 'hired',
      meter_tariff: 1,
      meter_fare_cents: 780,
      passengers: 1,
      door_open: false,
    });
  });

  it('takes a batch of locations (the plugin batch mode) in one durable write', async () => {
    const location = (s: number) => ({
      timestamp: new Date(T0 + s * 1000).toISOString(),
      coords: { latitude: -15.8, longitude: -47.9, accuracy: 4, speed: -1, heading: 90, altitude: 0 },
    });
    const res = await postJson({ device_id: '48241179', location: [location(100), location(101), location(102)] });
    expect(res.status).toBe(200);
    const ts = (await p.rows('dev-phone')).map((r) => r.ts.getTime());
    expect(ts).toEqual(expect.arrayContaining([T0 + 100_000, T0 + 101_000, T0 + 102_000]));
  });

  it("answers an unknown device_id with 404, as Traccar's JSON decoder does", async () => {
    const res = await postJson({
      location: { timestamp: new Date(T0).toISOString(), coords: { latitude: 37.42, longitude: -122.08 } },
      device_id: '658765',
    });
    expect(res.status).toBe(404);
  });

  it('refuses malformed JSON and a location without coords, with a reason', async () => {
    let res = await fetch(`${base}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"device_id":',
    });
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/MALFORMED_JSON/);
    res = await postJson({ device_id: '48241179', location: { timestamp: new Date(T0).toISOString() } });
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/NO_POSITION/);
  });

  it('refuses a body over the limit with 413', async () => {
    const res = await fetch(`${base}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ device_id: '48241179', pad: 'x'.repeat(100_000) }),
    });
    expect(res.status).toBe(413);
    expect(await badInput('body_too_large')).toBe(1);
  });
});

describe('durability', () => {
  it('answers 200 only once the row is committed', async () => {
    await p.registerDevice({ id: 'dev-durable', identifier: 'DURABLE-1', protocol: 'osmand' });
    const lock = await lockTelemetry(p.db);
    let answered = false;
    let pending: Promise<Response> | undefined;
    try {
      pending = get(`id=DURABLE-1&lat=-15.8&lon=-47.9&timestamp=${T0_S}`).then((r) => {
        answered = true;
        return r;
      });
      await new Promise((r) => setTimeout(r, 400));
      expect(answered).toBe(false);
    } finally {
      lock.release();
      await lock.done;
    }
    const res = await pending;
    expect(res?.status).toBe(200);
    expect(await p.rows('dev-durable')).toHaveLength(1);
  });

  it('answers 503 with Retry-After when the writer cannot take the position, so the client keeps it', async () => {
    const small = await startPipeline({ maxPending: 1 });
    try {
      await small.registerDevice({ id: 'dev-503', identifier: 'FULL-1', protocol: 'osmand' });
      const lock = await lockTelemetry(small.db);
      try {
        const first = fetch(
          `http://127.0.0.1:${small.gateways.osmandPort}/?id=FULL-1&lat=-15.8&lon=-47.9&timestamp=${T0_S}`,
        );
        await new Promise((r) => setTimeout(r, 200));
        const second = await fetch(
          `http://127.0.0.1:${small.gateways.osmandPort}/?id=FULL-1&lat=-15.8&lon=-47.9&timestamp=${T0_S + 1}`,
        );
        expect(second.status).toBe(503);
        expect(second.headers.get('retry-after')).not.toBeNull();
        lock.release();
        expect((await first).status).toBe(200);
      } finally {
        lock.release();
        await lock.done;
      }
      expect((await small.rows('dev-503')).map((r) => r.ts.getTime())).toEqual([T0]);
    } finally {
      await small.close();
    }
  });
});
