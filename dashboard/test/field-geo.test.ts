import { haversineM } from '@vigia/ingest';
import { describe, expect, it } from 'vitest';
import { bearingDeg, byDistanceThenRecency, compassLabel, distanceLabel, distanceM } from '../src/field-geo.js';

/** The field view's straight-line geometry and ordering (Node, no browser). */

const rodoviaria = { lat: -15.7939, lon: -47.8828 };

describe('field geometry', () => {
  it('measures Brasília to São Paulo as the great circle does (about 873 km)', () => {
    const km = distanceM(rodoviaria, { lat: -23.5505, lon: -46.6333 }) / 1000;
    expect(km).toBeGreaterThan(865);
    expect(km).toBeLessThan(880);
  });

  it('agrees with the rules engine on a street-scale distance (within 0.5 %)', () => {
    const to = { lat: -15.7891, lon: -47.8712 };
    const engine = haversineM(rodoviaria.lat, rodoviaria.lon, to.lat, to.lon);
    expect(Math.abs(distanceM(rodoviaria, to) - engine) / engine).toBeLessThan(0.005);
  });

  it('gives bearings clockwise from north, and Brazilian compass letters', () => {
    const east = bearingDeg(rodoviaria, { lat: rodoviaria.lat, lon: rodoviaria.lon + 0.01 });
    const south = bearingDeg(rodoviaria, { lat: rodoviaria.lat - 0.01, lon: rodoviaria.lon });
    expect(east).toBeCloseTo(90, 0);
    expect(south).toBeCloseTo(180, 5);
    expect([0, 45, 90, 135, 180, 225, 270, 315, 359].map(compassLabel)).toEqual([
      'N',
      'NE',
      'L',
      'SE',
      'S',
      'SO',
      'O',
      'NO',
      'N',
    ]);
  });

  it('writes distances as a person reads them', () => {
    expect([84, 850, 1234, 5000].map(distanceLabel)).toEqual(['80 m', '850 m', '1,2 km', '5 km']);
  });

  it('puts the nearest first, and the newer first within the same 250 m band', () => {
    const rows = [
      { id: 'far', distanceM: 3000, startedMs: 9 },
      { id: 'near-old', distanceM: 100, startedMs: 1 },
      { id: 'near-new', distanceM: 200, startedMs: 5 },
      { id: 'middle', distanceM: 600, startedMs: 2 },
    ];
    expect(rows.sort(byDistanceThenRecency).map((row) => row.id)).toEqual(['near-new', 'near-old', 'middle', 'far']);
  });
});
