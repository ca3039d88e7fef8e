import { haversineM } from '@vigia/rules';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HistoryTravelTimes } from '../src/dispatch/history-travel-times.js';
import { StraightLineTravelTimes } from '../src/dispatch/straight-line-travel-times.js';
import { api, registerVehicle, startTestSystem, type Target, type TestSystem } from './support.js';

/**
 * The history model learns from telemetry as the product stores it: samples sent through
 * `POST /v1/telemetry` (ingest computes each sample's dist_m), read back by the model's SQL.
 */

const SLOW_LAT = -15.8;
const FAST_LAT = -15.83;
const WEST = -47.92;
const EAST = -47.88;
const METRES_PER_DEG_LON = haversineM(SLOW_LAT, 0, SLOW_LAT, 1);

/**
 * A taxi crossing from WEST to EAST along `lat` at `speedKmh`, free, a sample every 10 s, ending
 * `endMs`; `reportsSpeed` false: a tracker that sends positions only.
 */
function crossing(deviceId: string, lat: number, speedKmh: number, endMs: number, reportsSpeed = true) {
  const stepDeg = ((speedKmh / 3.6) * 10) / METRES_PER_DEG_LON;
  const n = Math.floor((EAST - WEST) / stepDeg) + 1;
  return Array.from({ length: n }, (_, i) => ({
    deviceId,
    ts: new Date(endMs - (n - 1 - i) * 10_000).toISOString(),
    lat,
    lon: WEST + i * stepDeg,
    ...(reportsSpeed ? { speedKmh } : {}),
    meter: { state: 'free' },
  }));
}

/** A hired trip 1.5 km north then 1.5 km east at 36 km/h (100 m per 10 s sample), free before and after. */
function lShapedTrip(deviceId: string, startMs: number, tripId: string) {
  const lat0 = -15.76;
  const lon0 = -47.9;
  const dLat = 100 / haversineM(lat0, lon0, lat0 + 1, lon0);
  const dLon = 100 / haversineM(lat0, lon0, lat0, lon0 + 1);
  const points: { lat: number; lon: number; state: string }[] = [{ lat: lat0, lon: lon0, state: 'free' }];
  for (let i = 0; i <= 15; i++) points.push({ lat: lat0 + i * dLat, lon: lon0, state: 'hired' });
  for (let j = 1; j <= 15; j++) points.push({ lat: lat0 + 15 * dLat, lon: lon0 + j * dLon, state: 'hired' });
  points.push({ lat: lat0 + 15 * dLat, lon: lon0 + 15 * dLon, state: 'free' });
  return points.map((p, i) => ({
    deviceId,
    ts: new Date(startMs + i * 10_000).toISOString(),
    lat: p.lat,
    lon: p.lon,
    speedKmh: p.state === 'hired' ? 36 : 0,
    meter: p.state === 'hired' ? { state: 'hired', tariff: 1, fareCents: 500 + i * 10, tripId } : { state: 'free' },
  }));
}

describe.each(['pglite', 'postgres'] as Target[])('trace-history travel times (%s)', (target) => {
  let sys: TestSystem;
  const now = Date.now();

  beforeAll(async () => {
    sys = await startTestSystem(target);
    const slow = await registerVehicle(sys, { operatorId: 'coop-eta' });
    const fast = await registerVehicle(sys, { operatorId: 'coop-eta' });
    const hired = await registerVehicle(sys, { operatorId: 'coop-eta' });
    const running = await registerVehicle(sys, { operatorId: 'coop-eta' });
    for (const [dev, samples] of [
      [slow, crossing(slow.identifier, SLOW_LAT, 10, now - 120_000)],
      [fast, crossing(fast.identifier, FAST_LAT, 50, now - 120_000, false)],
      [hired, lShapedTrip(hired.identifier, now - 40 * 60_000, 'trip-done')],
      // Still hired 8.7 minutes ago: under way at the read's settle bound (10 min), not taken half-way.
      [running, lShapedTrip(running.identifier, now - 14 * 60_000, 'trip-running').slice(0, -1)],
    ] as const) {
      const res = await api(sys, 'POST', '/v1/telemetry', samples, dev.token);
      expect(res.status).toBe(200);
    }
  }, 60_000);

  afterAll(async () => {
    await sys?.stop();
  });

  const options = {
    log: pino({ level: 'silent' }),
    fallbackSpeedKmh: 25,
    defaultDetourFactor: 1.35,
    historyDays: 2,
    refreshS: 300,
    minSamples: 3,
    minSpeedKmh: 5,
    minTrips: 1,
  };

  it('learns a slow area: the estimate through it is longer than through a fast one of the same length', async () => {
    const history = new HistoryTravelTimes({ ...options, db: sys.db });
    const at = new Date(now);
    const before = await history.estimate([{ lat: SLOW_LAT, lon: WEST }], { lat: SLOW_LAT, lon: EAST }, at);
    await history.refresh();
    const [slowS, fastS] = [
      ...(await history.estimate([{ lat: SLOW_LAT, lon: WEST }], { lat: SLOW_LAT, lon: EAST }, at)),
      ...(await history.estimate([{ lat: FAST_LAT, lon: WEST }], { lat: FAST_LAT, lon: EAST }, at)),
    ] as [number, number];
    const detour = history.model.detourFactor();
    const lengthM = haversineM(SLOW_LAT, WEST, SLOW_LAT, EAST);
    // Before any refresh: the straight-line estimate at the fallback speed and default detour.
    const straight = new StraightLineTravelTimes({ detourFactor: 1.35, speedKmh: 25 });
    expect(before[0]).toBeCloseTo(
      (await straight.estimate([{ lat: SLOW_LAT, lon: WEST }], { lat: SLOW_LAT, lon: EAST }))[0] as number,
      3,
    );
    // Learnt: about 10 km/h and 50 km/h along the whole way (the latter from positions alone).
    expect(slowS / ((lengthM * detour) / (10 / 3.6))).toBeGreaterThan(0.85);
    expect(slowS / ((lengthM * detour) / (10 / 3.6))).toBeLessThan(1.15);
    expect(fastS / ((lengthM * detour) / (50 / 3.6))).toBeGreaterThan(0.85);
    expect(fastS / ((lengthM * detour) / (50 / 3.6))).toBeLessThan(1.15);
    // A stretch with no samples is crossed at the fallback speed.
    const [unknownS] = await history.estimate([{ lat: -15.9, lon: WEST }], { lat: -15.9, lon: EAST }, at);
    expect(unknownS).toBeCloseTo((haversineM(-15.9, WEST, -15.9, EAST) * detour) / (25 / 3.6), 0);
    // A second refresh reads nothing new and changes nothing.
    await history.refresh();
    expect((await history.estimate([{ lat: SLOW_LAT, lon: WEST }], { lat: SLOW_LAT, lon: EAST }, at))[0]).toBeCloseTo(
      slowS,
      6,
    );
  });

  it('measures the detour factor from a hired trip (path over start-to-end distance)', async () => {
    const history = new HistoryTravelTimes({ ...options, db: sys.db });
    expect(history.model.detourFactor()).toBe(1.35);
    await history.refresh();
    // 3 000 m driven between ends 2 121 m apart.
    expect(history.model.detourFactor()).toBeCloseTo(Math.SQRT2, 2);
    expect(history.model.summary().trips).toBe(1);
  });
});
