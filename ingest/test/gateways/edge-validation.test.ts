import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Pipeline, startPipeline } from './support/pipeline.js';
import { fixRecord, frameOf, TestDevice } from './support/test-device.js';

/**
 * Issue 8 on the device gateways, over real sockets into a real PostgreSQL:
 * - finding 2: a NUL in an OsmAnd parameter (`driverUniqueId=ab%00cd`, `id=ab%00`) used to reach
 *   the database and fail the shared transaction (503 for every position batched with it); it is
 *   now a 400 CONTROL_CHARACTER at the edge, and nothing is looked up or written;
 * - finding 8: a record stamped in 1970 was stored; the past is bounded now (PAST_TIMESTAMP), on
 *   OsmAnd (400) and on Teltonika (acknowledged, not stored, counted: the device must move on);
 * - finding 10: a device whose registry entry names a profile that does not exist was refused on
 *   every message (Teltonika handshake 00, OsmAnd 503 which a phone retries for ever); its fix is
 *   now stored and acknowledged, without profile inputs, and the problem logged.
 */

const MAX_PAST_AGE_S = 30 * 86_400;
/** An hour ago, on a whole second. */
const T0 = Math.floor(Date.now() / 1000) * 1000 - 3_600_000;
const T0_S = T0 / 1000;
/** 1 January 1970 plus a day: a tracker whose clock reset. */
const EPOCH_DAY_S = 86_400;
const HTTP = { protocol: 'osmand', transport: 'http' };
const TCP = { protocol: 'teltonika', transport: 'tcp' };

let p: Pipeline;
let base: string;

beforeAll(async () => {
  p = await startPipeline({ maxPastAgeS: MAX_PAST_AGE_S });
  base = `http://127.0.0.1:${p.gateways.osmandPort}`;
  await p.registerDevice({ id: 'dev-phone', identifier: 'PHONE-1', protocol: 'osmand' });
  await p.registerDevice({
    id: 'dev-phone-bad-profile',
    identifier: 'PHONE-2',
    protocol: 'osmand',
    profile: 'default',
  });
  await p.registerDevice({ id: 'dev-tracker', identifier: '350000000000113', protocol: 'teltonika' });
  await p.registerDevice({
    id: 'dev-tracker-bad-profile',
    identifier: '350000000000121',
    protocol: 'teltonika',
    profile: 'default',
  });
});

afterAll(async () => {
  await p?.close();
});

const get = (query: string) => fetch(`${base}/?${query}`);
const postJson = (body: unknown) =>
  fetch(`${base}/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const position = (id: string, tsS = T0_S) => `id=${id}&timestamp=${tsS}&lat=-15.7942&lon=-47.8822&speed=10`;

describe('control characters on OsmAnd (finding 2)', () => {
  it('answers 400 CONTROL_CHARACTER for driverUniqueId=ab%00cd and stores nothing, not a 503', async () => {
    const res = await get(`${position('PHONE-1', T0_S + 1)}&driverUniqueId=ab%00cd`);
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/^CONTROL_CHARACTER: parameter "driverUniqueId" contains U\+0000/);
    expect((await p.rows('dev-phone')).map((r) => r.ts.getTime())).not.toContain(T0 + 1000);
    expect(await p.gateways.metrics.value('badInput', { ...HTTP, reason: 'control_character' })).toBeGreaterThan(0);
  });

  it('answers 400 for a NUL in the id itself, without looking it up (a lookup with NUL is a database error)', async () => {
    const res = await get(position('ab%00'));
    expect(res.status).toBe(400);
    // Ids are visible ASCII only (finding 5), which leaves out every control character.
    expect(await res.text()).toMatch(/^INVALID_DEVICE_ID/);
    expect(p.logs.some((l) => l.code === 'LOOKUP_FAILED')).toBe(false);
  });

  it('refuses a control character in the JSON form: in extras (CONTROL_CHARACTER), or in device_id', async () => {
    const location = {
      timestamp: new Date(T0 + 2000).toISOString(),
      coords: { latitude: -15.7942, longitude: -47.8822, speed: 3, heading: 90, accuracy: 5 },
      extras: { driverUniqueId: 'D\u00001' },
    };
    const extras = await postJson({ device_id: 'PHONE-1', location });
    expect(extras.status).toBe(400);
    expect(await extras.text()).toMatch(/^CONTROL_CHARACTER/);
    const id = await postJson({ device_id: 'PHONE\u0007', location: { ...location, extras: {} } });
    expect(id.status).toBe(400);
    expect(await id.text()).toMatch(/^INVALID_DEVICE_ID/);
  });

  it('still stores a clean position from the same phone', async () => {
    const res = await get(`${position('PHONE-1', T0_S + 3)}&driverUniqueId=D-77`);
    expect(res.status).toBe(200);
    const row = (await p.rows('dev-phone')).find((r) => r.ts.getTime() === T0 + 3000);
    expect(row?.tacho_driver_id).toBe('D-77');
  });
});

describe('the past is bounded (finding 8)', () => {
  it('OsmAnd: answers 400 PAST_TIMESTAMP for a 1970 timestamp and stores a backlog within the bound', async () => {
    const old = await get(position('PHONE-1', EPOCH_DAY_S));
    expect(old.status).toBe(400);
    expect(await old.text()).toMatch(/^PAST_TIMESTAMP: ts 1970-01-02T00:00:00.000Z is more than 2592000 s behind/);
    const backlog = T0_S - 20 * 86_400;
    expect((await get(position('PHONE-1', backlog))).status).toBe(200);
    const stored = (await p.rows('dev-phone')).map((r) => r.ts.getTime());
    expect(stored).toContain(backlog * 1000);
    expect(stored).not.toContain(EPOCH_DAY_S * 1000);
    expect(await p.gateways.metrics.value('rejected', { ...HTTP, reason: 'past_timestamp' })).toBe(1);
  });

  it('Teltonika: acknowledges the whole packet, stores the recent record only, counts the old one', async () => {
    const d = await TestDevice.connect(p.gateways.teltonikaPort);
    try {
      expect(await d.handshake('350000000000113')).toBe(1);
      const tooOld = T0 - (MAX_PAST_AGE_S + 3600) * 1000;
      // A refused record is acknowledged as today's future ones: a partial count means a resend for ever.
      expect(await d.send(frameOf([fixRecord(T0), fixRecord(EPOCH_DAY_S * 1000), fixRecord(tooOld)]))).toBe(3);
      expect((await p.rows('dev-tracker')).map((r) => r.ts.getTime())).toEqual([T0]);
      expect(await p.gateways.metrics.value('rejected', { ...TCP, reason: 'past_timestamp' })).toBe(2);
      expect(p.logs.some((l) => l.code === 'PAST_TIMESTAMP' && l.device === '350000000000113')).toBe(true);
    } finally {
      d.destroy();
    }
  });
});

describe('a registry entry naming a missing profile (finding 10)', () => {
  it('OsmAnd: stores the fix without profile inputs and answers 200, not 503', async () => {
    const res = await get(`${position('PHONE-2')}&driverUniqueId=D-1&meter=hired`);
    expect(res.status).toBe(200);
    const rows = await p.rows('dev-phone-bad-profile');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ lat: -15.7942, lon: -47.8822, tacho_driver_id: null, meter_state: null });
    expect(p.logs).toContainEqual(
      expect.objectContaining({ code: 'PROFILE_UNAVAILABLE', device: 'PHONE-2', profile: 'default' }),
    );
  });

  it('Teltonika: accepts the handshake, acknowledges and stores the fix', async () => {
    const d = await TestDevice.connect(p.gateways.teltonikaPort);
    try {
      expect(await d.handshake('350000000000121')).toBe(1);
      expect(await d.send(frameOf([fixRecord(T0)]))).toBe(1);
      expect((await p.rows('dev-tracker-bad-profile')).map((r) => r.ts.getTime())).toEqual([T0]);
      expect(p.logs).toContainEqual(
        expect.objectContaining({ code: 'PROFILE_UNAVAILABLE', device: '350000000000121', reason: 'UNKNOWN_PROFILE' }),
      );
    } finally {
      d.destroy();
    }
  });
});
