import { describe, expect, it } from 'vitest';
import type { FleetDeltaRow } from '../src/api-types.js';
import { FleetStore } from '../src/fleet-store.js';

/** The store's side of `fleet-delta` (a viewport socket's pushes): rows change only what they carry. */

const base = Date.parse('2026-12-01T12:00:00Z');

const firstRow: FleetDeltaRow = {
  id: 'taxi-1',
  t: 0,
  plate: 'JKL1A23',
  operatorId: 'coop-1',
  pack: 'df-taxi',
  serviceType: 'taxi',
  lat: -15.79,
  lon: -47.88,
  speedKmh: 20,
  headingDeg: 90,
  meterState: 'free',
  tariff: null,
  passengers: 0,
  doorOpen: false,
  ignition: true,
};

function store(): { fleet: FleetStore; changes: Array<ReadonlySet<string> | null> } {
  const fleet = new FleetStore({ offlineAfterS: 120, now: () => base + 5000 });
  const changes: Array<ReadonlySet<string> | null> = [];
  fleet.subscribe((changed) => changes.push(changed));
  return { fleet, changes };
}

describe('fleet store, delta rows', () => {
  it('places a vehicle from its first row, then changes only the fields a row carries', () => {
    const { fleet, changes } = store();
    fleet.applyDelta({ base, rows: [firstRow] });
    expect(fleet.get('taxi-1')).toMatchObject({
      plate: 'JKL1A23',
      position: { lat: -15.79, lon: -47.88 },
      status: 'free',
    });
    // Due north: only the latitude travels; then the meter is hired on Bandeira II.
    fleet.applyDelta({ base: base + 1000, rows: [{ id: 'taxi-1', t: 0, lat: -15.78, speedKmh: 35 }] });
    fleet.applyDelta({ base: base + 2000, rows: [{ id: 'taxi-1', t: 0, meterState: 'hired', tariff: 2 }] });
    expect(fleet.get('taxi-1')).toMatchObject({
      plate: 'JKL1A23',
      position: { lat: -15.78, lon: -47.88 },
      speedKmh: 35,
      headingDeg: 90,
      lastSeenMs: base + 2000,
      status: 'hired-2',
    });
    expect(changes.map((changed) => (changed ? [...changed] : null))).toEqual([['taxi-1'], ['taxi-1'], ['taxi-1']]);
  });

  it('ignores a row older than what the vehicle shows, and a partial row of a vehicle it does not know', () => {
    const { fleet, changes } = store();
    fleet.applyDelta({ base: base + 3000, rows: [firstRow] });
    fleet.applyDelta({ base, rows: [{ id: 'taxi-1', t: 0, lat: 0, lon: 0 }] });
    fleet.applyDelta({ base, rows: [{ id: 'unknown', t: 0, lat: -15.7, lon: -47.9 }] });
    expect(fleet.get('taxi-1')?.position).toEqual({ lat: -15.79, lon: -47.88 });
    expect(fleet.get('unknown')).toBeUndefined();
    expect(changes).toHaveLength(1);
  });

  it('moves vehicles by their index from a packed push, skipping unknown indexes and older samples', () => {
    const { fleet, changes } = store();
    fleet.applyDelta({
      base,
      rows: [
        { ...firstRow, i: 0 },
        { ...firstRow, id: 'taxi-2', plate: 'JKL1A24', i: 1 },
      ],
    });
    const ids = ['taxi-1', 'taxi-2'];
    // taxi-2 moves with no heading; index 7 is no vehicle; taxi-1's record is older than its row.
    const records = new Float64Array([1, 1000, -15.7, -47.9, 44, Number.NaN, 7, 0, 0, 0, 0, 0, 0, -1000, 0, 0, 0, 0]);
    fleet.applyDelta({ base, rows: [], moves: records.buffer }, ids);
    expect(fleet.get('taxi-2')).toMatchObject({
      plate: 'JKL1A24',
      position: { lat: -15.7, lon: -47.9 },
      speedKmh: 44,
      headingDeg: null,
      lastSeenMs: base + 1000,
      status: 'free',
    });
    expect(fleet.get('taxi-1')).toMatchObject({ position: { lat: -15.79, lon: -47.88 }, lastSeenMs: base });
    expect(changes.map((changed) => (changed ? [...changed] : null))).toEqual([['taxi-1', 'taxi-2'], ['taxi-2']]);
  });

  it('keeps its counts by status as vehicles arrive, change, go offline and are cleared', () => {
    let now = base + 5000;
    const fleet = new FleetStore({ offlineAfterS: 120, now: () => now });
    fleet.applyDelta({ base, rows: [firstRow, { ...firstRow, id: 'taxi-2', plate: 'JKL1A24' }] });
    expect(fleet.counts()).toMatchObject({ total: 2, online: 2, byStatus: { free: 2, 'hired-1': 0 } });
    fleet.applyDelta({ base: base + 1000, rows: [{ id: 'taxi-2', t: 0, meterState: 'hired', tariff: 1 }] });
    expect(fleet.counts()).toMatchObject({ total: 2, online: 2, byStatus: { free: 1, 'hired-1': 1 } });
    // 120.5 s after `base`: taxi-1 (last seen then) is past the 120 s window, taxi-2 (a second later) is not.
    now = base + 120_500;
    fleet.refreshStatuses();
    expect(fleet.counts()).toMatchObject({ total: 2, online: 1, byStatus: { free: 0, 'hired-1': 1, offline: 1 } });
    fleet.clear();
    expect(fleet.counts()).toMatchObject({ total: 0, online: 0, byStatus: { free: 0, 'hired-1': 0, offline: 0 } });
  });
});
