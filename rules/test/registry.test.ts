import { describe, expect, it } from 'vitest';
import { createInMemoryRegistry } from '../src/registry/in-memory-registry.js';
import { square, taxi } from './helpers/fixtures.js';
import { offset } from './helpers/trace.js';

const P = { lat: -15.7975, lon: -47.8919 };

describe('the registry is versioned in time', () => {
  const registry = createInMemoryRegistry({
    vehicles: [
      taxi('t-1', 'df-taxi', { capacity: 4, validFrom: '2025-01-01T00:00:00Z', validTo: '2026-01-01T00:00:00Z' }),
      taxi('t-1', 'df-taxi', { capacity: 6, validFrom: '2026-01-01T00:00:00Z', validTo: '2026-06-01T00:00:00Z' }),
    ],
    stops: [
      { id: 'old', name: 'Parada antiga', ...offset(P.lat, P.lon, 10, 0), validTo: '2026-01-01T00:00:00Z' },
      { id: 'new', name: 'Parada nova', ...offset(P.lat, P.lon, 20, 90), validFrom: '2026-01-01T00:00:00Z' },
    ],
    zones: [
      {
        id: 'z',
        pack: 'df-taxi',
        kind: 'unpaved',
        name: 'Terra',
        geometry: square(P.lat, P.lon, 100),
        validFrom: '2026-03-01T00:00:00Z',
      },
    ],
  });
  const ms = (iso: string) => Date.parse(iso);

  it('answers each lookup with the version in force at the instant asked', () => {
    expect(registry.vehicle('t-1', ms('2025-06-01T00:00:00Z'))?.capacity).toBe(4);
    expect(registry.vehicle('t-1', ms('2026-01-01T00:00:00Z'))?.capacity).toBe(6);
    expect(registry.vehicle('t-1', ms('2026-06-01T00:00:00Z'))).toBeNull();
    expect(registry.vehicle('t-1', ms('2024-12-31T23:59:59Z'))).toBeNull();
    expect(registry.vehicleHistory('t-1')).toHaveLength(2);
  });

  it('indexes every version of stops and zones and filters by time', () => {
    expect(registry.stopsWithin(P.lat, P.lon, 30, ms('2025-06-01T00:00:00Z')).map((h) => h.stop.id)).toEqual(['old']);
    expect(registry.stopsWithin(P.lat, P.lon, 30, ms('2026-06-01T00:00:00Z')).map((h) => h.stop.id)).toEqual(['new']);
    const hit = registry.stopsWithin(P.lat, P.lon, 30, ms('2026-06-01T00:00:00Z'))[0];
    expect(hit?.distanceM).toBeCloseTo(20, 0);
    expect(registry.zonesAt(P.lat, P.lon, ms('2026-02-01T00:00:00Z'), 'df-taxi', ['unpaved'])).toHaveLength(0);
    expect(registry.zonesAt(P.lat, P.lon, ms('2026-04-01T00:00:00Z'), 'df-taxi', ['unpaved'])).toHaveLength(1);
    expect(registry.zonesAt(P.lat, P.lon, ms('2026-04-01T00:00:00Z'), 'belem-taxi', ['unpaved'])).toHaveLength(0);
  });

  it('rejects overlapping versions and invalid records', () => {
    expect(() =>
      createInMemoryRegistry({
        vehicles: [
          taxi('t-1', 'df-taxi', { validFrom: '2025-01-01T00:00:00Z', validTo: '2026-02-01T00:00:00Z' }),
          taxi('t-1', 'df-taxi', { validFrom: '2026-01-01T00:00:00Z' }),
        ],
      }),
    ).toThrow(/overlap/);
    expect(() =>
      createInMemoryRegistry({ vehicles: [taxi('t-1', 'df-taxi', { permitValidUntil: '2026-02-30' })] }),
    ).toThrow();
    expect(() =>
      createInMemoryRegistry({
        stands: [
          {
            id: 's',
            pack: 'df-taxi',
            name: 's',
            geometry: { type: 'Point', coordinates: [P.lon, P.lat] },
            places: 2,
            kind: 'livre',
          },
        ],
      }),
    ).toThrow(/radiusM/);
  });

  it('finds stands by polygon or by point and radius, with the exit margin', () => {
    const r = createInMemoryRegistry({
      stands: [
        {
          id: 'circle',
          pack: 'df-taxi',
          name: 'c',
          geometry: { type: 'Point', coordinates: [P.lon, P.lat] },
          radiusM: 20,
          places: 2,
          kind: 'livre',
        },
        {
          id: 'poly',
          pack: 'df-taxi',
          name: 'p',
          geometry: square(offset(P.lat, P.lon, 500, 0).lat, P.lon, 20),
          places: 2,
          kind: 'fixo',
        },
      ],
    });
    const inCircle = offset(P.lat, P.lon, 15, 90);
    expect(r.standsAt(inCircle.lat, inCircle.lon, 0, 'df-taxi').map((h) => h.stand.id)).toEqual(['circle']);
    const justOut = offset(P.lat, P.lon, 30, 90);
    expect(r.standsAt(justOut.lat, justOut.lon, 0, 'df-taxi')).toHaveLength(0);
    expect(r.standsAt(justOut.lat, justOut.lon, 0, 'df-taxi', 15)[0]?.distanceM).toBeCloseTo(10, 0);
    const inPoly = offset(P.lat, P.lon, 505, 0);
    expect(r.standsAt(inPoly.lat, inPoly.lon, 0, 'df-taxi').map((h) => h.stand.id)).toEqual(['poly']);
  });
});

describe('GTFS stops.txt parsing', () => {
  it('reads quoted fields, doubled quotes, a BOM and CRLF; skips stations and rows without a position', async () => {
    const { parseGtfsStops, splitCsvRecord } = await import('../src/registry/gtfs-stops.js');
    expect(splitCsvRecord('1,"Rua A, 100","diz ""oi""",-23.5')).toEqual(['1', 'Rua A, 100', 'diz "oi"', '-23.5']);
    const text =
      '\uFEFFstop_id,"stop_name",stop_lat,stop_lon,location_type\r\n18848,"Clínicas",-23.554022,-46.671108,0\r\nST,"Estação",-23.5,-46.6,1\r\nX,"Sem posição",,,0\r\n';
    const stops = parseGtfsStops(text, 'test');
    expect(stops).toEqual([{ id: '18848', name: 'Clínicas', lat: -23.554022, lon: -46.671108, source: 'test' }]);
  });
});
