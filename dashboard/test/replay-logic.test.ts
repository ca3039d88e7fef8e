import { describe, expect, it } from 'vitest';
import { areaPositionAt, indexAtOrBefore, positionAt, toVehicleTrack } from '../src/replay/replay-data.js';
import { trailFeatures } from '../src/replay/replay-map-layer.js';
import { instantOfWallClock, wallClockOf } from '../src/replay/zoned-input.js';
import { statusStyles } from '../src/vehicle-status.js';

/** The replay's logic that needs no page: the legal clock of the inputs, positions at an instant, the trail's colours. */

const t0 = Date.parse('2026-11-30T15:00:00Z');

/** Two lines: three samples free then hired (Bandeira I), a gap, two on Bandeira II. */
const answer = {
  type: 'FeatureCollection',
  vehicle: { id: 'veh-1', plate: 'ABC1D23', pack: 'df-taxi', operatorId: 'op-1' },
  from: '2026-11-30T14:00:00.000Z',
  to: '2026-11-30T16:00:00.000Z',
  stepS: null,
  features: [
    {
      type: 'Feature',
      geometry: {
        type: 'LineString',
        coordinates: [
          [-47.9, -15.8],
          [-47.89, -15.8],
          [-47.88, -15.8],
        ],
      },
      properties: {
        times: [0, 10, 20].map((s) => new Date(t0 + s * 1000).toISOString()),
        speedsKmh: [10, 20, 30],
        meterStates: ['free', 'hired', 'hired'],
        tariffs: [null, 1, 1],
        passengers: [0, 1, 1],
      },
    },
    {
      type: 'Feature',
      geometry: {
        type: 'LineString',
        coordinates: [
          [-47.8, -15.7],
          [-47.79, -15.7],
        ],
      },
      properties: {
        times: [600, 610].map((s) => new Date(t0 + s * 1000).toISOString()),
        speedsKmh: [40, 40],
        meterStates: ['hired', 'hired'],
        tariffs: [2, 2],
        passengers: [2, 2],
      },
    },
  ],
  violations: [{ id: 'v1', ruleId: 'DF_X', description: 'd', startedAt: new Date(t0).toISOString(), endedAt: null }],
  hours: null,
};

describe('replay logic', () => {
  it('reads a datetime-local value on the pack’s legal clock, not the browser’s', () => {
    // Brasília is UTC−3 all year; Belém too; Rio Branco (Acre) is UTC−5.
    expect(instantOfWallClock('2026-11-30T12:05', 'America/Sao_Paulo')).toBe(Date.parse('2026-11-30T15:05:00Z'));
    expect(instantOfWallClock('2026-11-30T12:05', 'America/Rio_Branco')).toBe(Date.parse('2026-11-30T17:05:00Z'));
    expect(wallClockOf(Date.parse('2026-11-30T15:05:30Z'), 'America/Belem')).toBe('2026-11-30T12:05');
    // Across a summer-time change (New York, 8 March 2026): both sides right.
    expect(instantOfWallClock('2026-03-08T01:30', 'America/New_York')).toBe(Date.parse('2026-03-08T06:30:00Z'));
    expect(instantOfWallClock('2026-03-08T03:30', 'America/New_York')).toBe(Date.parse('2026-03-08T07:30:00Z'));
    expect(Number.isNaN(instantOfWallClock('30/11/2026 12:05', 'America/Sao_Paulo'))).toBe(true);
  });

  it('flattens the track, interpolates within a line and stays put across a gap', () => {
    const track = toVehicleTrack(answer);
    expect(track.points.map((p) => p.line)).toEqual([0, 0, 0, 1, 1]);
    expect(track.violations).toEqual([expect.objectContaining({ ruleId: 'DF_X', startedAt: t0, endedAt: null })]);
    const times = track.points.map((p) => p.t);
    expect(indexAtOrBefore(times, t0 - 1)).toBe(-1);
    expect(indexAtOrBefore(times, t0 + 15_000)).toBe(1);
    expect(positionAt(track.points, times, t0 - 1)).toBeNull();
    const halfway = positionAt(track.points, times, t0 + 5000);
    expect(halfway?.lon).toBeCloseTo(-47.895, 6);
    expect(halfway?.inGap).toBe(false);
    // In the gap: at the last sample before it, flagged.
    const gap = positionAt(track.points, times, t0 + 300_000);
    expect([gap?.lon, gap?.inGap]).toEqual([-47.88, true]);
    expect(positionAt(track.points, times, t0 + 605_000)?.lon).toBeCloseTo(-47.795, 6);
  });

  it('colours the trail by meter state in runs that join, and breaks it at gaps', () => {
    const features = trailFeatures(toVehicleTrack(answer).points);
    expect(features.map((f) => [f.properties?.colour, f.geometry.coordinates.length])).toEqual([
      [statusStyles.free.color, 2],
      [statusStyles['hired-1'].color, 2],
      [statusStyles['hired-2'].color, 2],
    ]);
    // The hired run starts where the free one ends.
    expect(features[1]?.geometry.coordinates[0]).toEqual([-47.89, -15.8]);
  });

  it('places an area replay’s vehicle between its positions, hollow once silent a minute', () => {
    const v = {
      id: 'veh-2',
      plate: 'XYZ',
      pack: 'df-taxi' as const,
      t: [t0, t0 + 5000, t0 + 200_000],
      lat: [-15.8, -15.8, -15.7],
      lon: [-47.9, -47.8, -47.7],
      meterState: ['free' as const, 'free' as const, 'hired' as const],
    };
    expect(areaPositionAt(v, t0 - 1)).toBeNull();
    expect(areaPositionAt(v, t0 + 2500)?.lon).toBeCloseTo(-47.85, 6);
    expect(areaPositionAt(v, t0 + 30_000)).toEqual({ lon: -47.8, lat: -15.8, meterState: 'free', stale: false });
    expect(areaPositionAt(v, t0 + 90_000)?.stale).toBe(true);
    expect(areaPositionAt(v, t0 + 200_000)).toMatchObject({ lon: -47.7, meterState: 'hired', stale: false });
  });
});
