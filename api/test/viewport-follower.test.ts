import type { FleetUpdate } from '@vigia/core';
import { describe, expect, it } from 'vitest';
import { FleetDeltaEncoder } from '../src/live/fleet-delta.js';
import { movesRecordBytes } from '../src/live/live-protocol.js';
import { areaOf, ViewportFollower } from '../src/live/viewport-follower.js';
import { fleetUpdate } from './fleet-support.js';

/** The pure parts of the viewport feed, on a clock the test sets: the area, the holding, the encoding. */

const view = { bbox: [-48.0, -15.9, -47.8, -15.7] as [number, number, number, number], zoom: 12 };
const inside = { lat: -15.8, lon: -47.9 };
const far = { lat: -1.45, lon: -48.49 };

function update(vehicleId: string, at: { lat: number; lon: number }, tsMs: number, speedKmh = 30): FleetUpdate {
  return fleetUpdate(vehicleId, at, {
    operatorId: 'op',
    ts: new Date(tsMs).toISOString(),
    speedKmh,
    headingDeg: 90,
    passengers: 0,
    doorOpen: false,
  });
}

describe('viewport follower', () => {
  it('grows the view by the margin on each side, within the globe', () => {
    expect(areaOf(view, 0.25)).toEqual([-48.05, -15.95, -47.75, -15.65].map((v) => expect.closeTo(v, 9)));
    expect(areaOf({ bbox: [-180, -90, 180, 90], zoom: 0 }, 1)).toEqual([-180, -90, 180, 90]);
  });

  it('holds a vehicle outside the area, newest sample only, for at most the refresh', () => {
    const follower = new ViewportFollower(view, { margin: 0.25, outsideRefreshMs: 30_000 });
    const t0 = Date.parse('2026-12-01T12:00:00Z');
    expect(follower.take([update('far', far, t0)], t0)).toBeNull();
    let delta = follower.take([update('far', { ...far, lat: -1.46 }, t0 + 100)], t0 + 100);
    let at = t0 + 100;
    while (delta === null && at < t0 + 60_000) {
      at += 100;
      delta = follower.take([], at);
    }
    expect(at - t0).toBeLessThanOrEqual(30_000 + 200);
    expect(delta?.rows).toEqual([expect.objectContaining({ id: 'far', lat: -1.46, plate: 'P-far' })]);
    // Sent: nothing more until it reports again.
    for (let t = at + 100; t < at + 40_000; t += 100) expect(follower.take([], t)).toBeNull();
  });

  it('spreads the vehicles held outside over the refresh instead of sending them in bursts', () => {
    const follower = new ViewportFollower(view, { margin: 0.25, outsideRefreshMs: 30_000 });
    const t0 = Date.parse('2026-12-01T12:00:00Z');
    // 10 000 vehicles far away report in step every 10 s; pushes every 500 ms for two minutes.
    const sent = new Map<string, number>();
    const perPush: number[] = [];
    for (let push = 0; push < 240; push++) {
      const now = t0 + push * 500;
      const reporting = Array.from({ length: 500 }, (_, k) => (push % 20) * 500 + k).map((i) =>
        update(`v${i}`, { lat: far.lat, lon: far.lon + push * 1e-5 }, now),
      );
      const rows = follower.take(reporting, now)?.rows ?? [];
      for (const row of rows) sent.set(row.id, (sent.get(row.id) ?? 0) + 1);
      if (push >= 120) perPush.push(rows.length);
    }
    expect(sent.size).toBe(10_000);
    // Each vehicle about once per refresh plus its report interval; no push far above the mean.
    const mean = perPush.reduce((a, b) => a + b, 0) / perPush.length;
    expect(mean).toBeGreaterThan(100);
    expect(Math.max(...perPush)).toBeLessThan(mean * 2);
  });

  it('sends at once what is in the area and what leaves it', () => {
    const follower = new ViewportFollower(view, { margin: 0, outsideRefreshMs: 30_000 });
    const t0 = Date.parse('2026-12-01T12:00:00Z');
    expect(follower.take([update('v', inside, t0)], t0)?.rows).toHaveLength(1);
    expect(follower.take([update('v', far, t0 + 1000)], t0 + 1000)?.rows).toEqual([
      { id: 'v', t: 0, lat: far.lat, lon: far.lon },
    ]);
    expect(follower.take([update('v', far, t0 + 2000)], t0 + 2000)).toBeNull();
  });
});

describe('fleet delta encoder', () => {
  it('sends every field the first time, then only what changed, and never an older sample', () => {
    const encoder = new FleetDeltaEncoder();
    const t0 = Date.parse('2026-12-01T12:00:00Z');
    const first = encoder.encode([update('a', inside, t0), update('b', inside, t0 + 500)]);
    expect(first?.base).toBe(t0);
    expect(first?.rows.map((row) => [row.id, row.t, Object.keys(row).length])).toEqual([
      ['a', 0, 15],
      ['b', 500, 15],
    ]);
    const second = encoder.encode([update('a', inside, t0 + 1000, 50), update('b', inside, t0 + 100)]);
    expect(second).toEqual({ base: t0 + 1000, rows: [{ id: 'a', t: 0, speedKmh: 50 }] });
    expect(encoder.encode([update('a', inside, t0 + 1000, 50)])).toBeNull();
  });
});

describe('fleet delta encoder, packed', () => {
  it('gives each vehicle an index in its first row, then sends its moves as binary records', () => {
    const encoder = new FleetDeltaEncoder(true);
    const t0 = Date.parse('2026-12-01T12:00:00Z');
    const first = encoder.encode([update('a', inside, t0), update('b', inside, t0 + 500)]);
    expect(first?.moves).toBeUndefined();
    expect(first?.rows.map((row) => [row.id, row.i, row.plate])).toEqual([
      ['a', 0, 'P-a'],
      ['b', 1, 'P-b'],
    ]);
    // b only moves; a's meter-free fields change too (its passengers), so it stays a row.
    const moved = { lat: inside.lat + 0.001, lon: inside.lon - 0.002 };
    const second = encoder.encode([
      { ...update('a', moved, t0 + 1000), passengers: 3 },
      { ...update('b', moved, t0 + 1500, 42), headingDeg: null },
    ]);
    expect(second?.base).toBe(t0 + 1000);
    expect(second?.rows).toEqual([{ id: 'a', i: 0, t: 0, lat: moved.lat, lon: moved.lon, passengers: 3 }]);
    const moves = second?.moves;
    expect(moves?.byteLength).toBe(movesRecordBytes);
    const record = moves ? new Float64Array(moves.buffer, moves.byteOffset, moves.byteLength / 8) : [];
    expect([...record]).toEqual([1, 500, moved.lat, moved.lon, 42, Number.NaN]);
  });
});
