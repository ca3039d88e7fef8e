import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type FleetUpdate, InProcessBus } from '@vigia/core';
import { migrate, openPglite } from '@vigia/db';
import { haversineM } from '@vigia/rules';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { LiveFleetIndex } from '../src/dispatch/live-fleet-index.js';
import { fleetUpdate } from './fleet-support.js';

const NOW = Date.parse('2026-03-02T15:00:00Z');
const PICKUP = { lat: -15.7942, lon: -47.8822 };

function update(vehicleId: string, northM: number, fields: Partial<FleetUpdate> = {}): FleetUpdate {
  const at = { lat: PICKUP.lat + northM / 111_195, lon: PICKUP.lon };
  return fleetUpdate(vehicleId, at, { ts: new Date(NOW - 5_000).toISOString(), ...fields });
}

const ids = (index: LiveFleetIndex, opts: { limit?: number; vehicleIds?: Set<string> } = {}) =>
  index
    .nearestFree(PICKUP, { limit: opts.limit ?? 10, maxDistanceM: 5_000, vehicleIds: opts.vehicleIds, nowMs: NOW })
    .map((t) => t.vehicleId);

describe('live fleet index', () => {
  it('returns the nearest free online taxis in order, never hired, offline, other services or others’ vehicles', () => {
    const index = new LiveFleetIndex({ offlineAfterS: 120, maxIndexAgeMs: 0, now: () => NOW });
    index.apply([
      update('far', 3_000),
      update('near', 200),
      update('mid', 900),
      update('no-meter', 1_500, { meterState: null }),
      update('hired', 100, { meterState: 'hired' }),
      update('off-duty', 150, { meterState: 'off' }),
      update('offline', 120, { ts: new Date(NOW - 121_000).toISOString() }),
      update('bus', 50, { serviceType: 'fretamento-continuo' }),
      update('too-far', 6_000),
    ]);
    expect(ids(index)).toEqual(['near', 'mid', 'no-meter', 'far']);
    expect(ids(index, { limit: 2 })).toEqual(['near', 'mid']);
    expect(ids(index, { vehicleIds: new Set(['far', 'mid', 'hired']) })).toEqual(['mid', 'far']);
    expect(index.get('hired')?.meterState).toBe('hired');
    expect(index.get('bus')).toBeUndefined();
  });

  it('answers the same through the tree and by measuring a small vehicle set: nearest first, free and online only', () => {
    const index = new LiveFleetIndex({ offlineAfterS: 120, maxIndexAgeMs: 0, now: () => NOW });
    let seed = 7;
    const rand = () => {
      seed = (seed * 16807) % 2147483647;
      return seed / 2147483647;
    };
    const states = ['free', 'hired', 'off', null] as const;
    const updates = Array.from({ length: 400 }, (_, i) =>
      update(`v${i}`, (rand() - 0.5) * 8_000, {
        lon: PICKUP.lon + (rand() - 0.5) * 0.08,
        meterState: states[i % 4] ?? null,
        ts: new Date(NOW - (i % 7 === 0 ? 300_000 : 1_000)).toISOString(),
      }),
    );
    index.apply(updates);
    const expected = (set: ReadonlySet<string>) =>
      updates
        .filter((u) => set.has(u.vehicleId) && (u.meterState === 'free' || u.meterState === null))
        .filter((u) => Date.parse(u.ts) >= NOW - 120_000)
        .map((u) => ({ id: u.vehicleId, d: haversineM(PICKUP.lat, PICKUP.lon, u.lat, u.lon) }))
        .filter((x) => x.d <= 5_000)
        .sort((a, b) => a.d - b.d)
        .slice(0, 10)
        .map((x) => x.id);
    const small = new Set(updates.slice(0, 40).map((u) => u.vehicleId)); // 1/10 of the fleet: measured
    const large = new Set(updates.slice(0, 300).map((u) => u.vehicleId)); // 3/4: the tree
    expect(ids(index, { vehicleIds: small })).toEqual(expected(small));
    expect(ids(index, { vehicleIds: large })).toEqual(expected(large));
    expect(expected(small).length).toBeGreaterThan(3);
    expect(expected(large)).toHaveLength(10);
  });

  it('drops a taxi from the candidates on the fleet update that makes it hired, and takes it back when free', () => {
    // A stale index (never rebuilt within the test) still judges every hit by the taxi's current state.
    let now = NOW;
    const index = new LiveFleetIndex({ offlineAfterS: 120, maxIndexAgeMs: 60_000, now: () => now });
    index.apply([update('a', 100), update('b', 400)]);
    expect(ids(index)).toEqual(['a', 'b']);
    index.apply([update('a', 100, { meterState: 'hired', ts: new Date(NOW - 1_000).toISOString() })]);
    expect(ids(index)).toEqual(['b']);
    // An older sample arriving late does not undo the newer state.
    index.apply([update('a', 100, { ts: new Date(NOW - 3_000).toISOString() })]);
    expect(ids(index)).toEqual(['b']);
    // Free again: a candidate at once, before any rebuild; so is a taxi that just came online.
    const rebuilds = index.stats().rebuilds;
    index.apply([update('a', 100, { ts: new Date(NOW).toISOString() }), update('new', 50)]);
    expect(ids(index)).toEqual(['new', 'a', 'b']);
    expect(ids(index, { limit: 2 })).toEqual(['new', 'a']);
    expect(ids(index, { vehicleIds: new Set(['a', 'b']) })).toEqual(['a', 'b']);
    expect(index.stats().rebuilds).toBe(rebuilds);
    // Rebuilt later, the same answer from the tree alone.
    now = NOW + 60_000;
    const later = index.nearestFree(PICKUP, { limit: 10, maxDistanceM: 5_000, nowMs: now });
    expect(later.map((t) => t.vehicleId)).toEqual(['new', 'a', 'b']);
    expect(index.stats().rebuilds).toBe(rebuilds + 1);
  });

  it('loads the taxis of vehicle_live at start (PGlite), then follows the bus', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'vigia-live-index-'));
    const db = await openPglite(join(dir, 'pg'));
    const bus = new InProcessBus();
    try {
      await migrate(db, pino({ level: 'silent' }));
      const now = Date.now();
      await db.exec(`
        INSERT INTO operators (id, name, pack) VALUES ('coop', 'Cooperativa', 'df-taxi');
        INSERT INTO vehicles (id, plate, pack, service_type, capacity, operator_id, retired_at)
          VALUES ('t-free', 'JKL1A23', 'df-taxi', 'taxi', 4, 'coop', NULL),
                 ('t-hired', 'JKL2B34', 'df-taxi', 'taxi', 4, 'coop', NULL),
                 ('t-retired', 'JKL3C45', 'df-taxi', 'taxi', 4, 'coop', now()),
                 ('bus', 'JKL4D56', 'df-taxi', 'fretamento-eventual', 40, 'coop', NULL);`);
      for (const [id, northM, meter] of [
        ['t-free', 500, 'free'],
        ['t-hired', 100, 'hired'],
        ['t-retired', 50, 'free'],
        ['bus', 20, null],
      ] as const) {
        await db.query(
          `INSERT INTO vehicle_live (vehicle_id, device_id, ts, lat, lon, meter_state) VALUES ($1, $1, $2, $3, $4, $5)`,
          [id, new Date(now - 10_000), PICKUP.lat + northM / 111_195, PICKUP.lon, meter],
        );
      }
      const index = await LiveFleetIndex.start(db, bus, { offlineAfterS: 120, maxIndexAgeMs: 0 });
      const near = () => index.nearestFree(PICKUP, { limit: 10, maxDistanceM: 5_000 }).map((t) => t.vehicleId);
      expect(near()).toEqual(['t-free']);
      expect(index.get('t-hired')?.meterState).toBe('hired');
      expect(index.get('bus')).toBeUndefined();
      const rebuilds = index.stats().rebuilds;
      await bus.publish({
        type: 'fleet',
        updates: [update('t-hired', 100, { meterState: 'free', ts: new Date(now).toISOString() })],
      });
      // A started index rebuilds after a change on its own, not in the next search.
      await new Promise((r) => setTimeout(r, 50));
      expect(index.stats().rebuilds).toBe(rebuilds + 1);
      expect(near()).toEqual(['t-hired', 't-free']);
      expect(index.stats().rebuilds).toBe(rebuilds + 1);
      index.stop();
    } finally {
      await bus.close();
      await db.close();
      await rm(dir, { recursive: true, force: true });
    }
  }, 150_000);
});
