import type { FleetUpdate } from '@vigia/core';
import { describe, expect, it } from 'vitest';
import { FleetDeltaEncoder } from '../src/live/fleet-delta.js';
import { areaOf, ViewportFollower } from '../src/live/viewport-follower.js';

/** The pure parts of the viewport feed, on a clock the test sets: the area, the holding, the encoding. */

const view = { bbox: [-48.0, -15.9, -47.8, -15.7] as [number, number, number, number], zoom: 12 };
const inside = { lat: -15.8, lon: -47.9 };
const far = { lat: -1.45, lon: -48.49 };

function update(vehicleId: string, at: { lat: number; lon: number }, tsMs: number, speedKmh = 30): FleetUpdate {
  return {
    vehicleId,
    plate: `P-${vehicleId}`,
    operatorId: 'op',
    pack: 'df-taxi',
    serviceType: 'taxi',
    ts: new Date(tsMs).toISOString(),
    ...at,
    speedKmh,
    headingDeg: 90,
    meterState: 'free',
    tariff: null,
    passengers: 0,
    doorOpen: false,
    ignition: true,
  };
}

describe('viewport follower', () => {
  it('grows the view by the margin on each side, within the globe', () => {
    expect(areaOf(view, 0.25)).toEqual([-48.05, -15.95, -47.75, -15.65].map((v) => expect.closeTo(v, 9)));
    expect(areaOf({ bbox: [-180, -90, 180, 90], zoom: 0 }, 1)).toEqual([-180, -90, 180, 90]);
  });

  it('holds a vehicle outside the area until it has waited the refresh, then sends its newest sample', () => {
    const follower = new ViewportFollower(view, { margin: 0.25, outsideRefreshMs: 30_000 });
    const t0 = Date.parse('2026-12-01T12:00:00Z');
    expect(follower.take([update('far', far, t0)], t0)).toBeNull();
    expect(follower.take([update('far', { ...far, lat: -1.46 }, t0 + 10_000)], t0 + 10_000)).toBeNull();
    expect(follower.take([], t0 + 29_999)).toBeNull();
    const delta = follower.take([], t0 + 30_000);
    expect(delta?.rows).toEqual([expect.objectContaining({ id: 'far', lat: -1.46, plate: 'P-far' })]);
    expect(delta && delta.base + (delta.rows[0]?.t ?? Number.NaN)).toBe(t0 + 10_000);
    // Sent: the next sample outside waits again from then.
    expect(follower.take([update('far', far, t0 + 40_000)], t0 + 40_000)).toBeNull();
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
