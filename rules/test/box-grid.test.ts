import fc from 'fast-check';
import Flatbush from 'flatbush';
import { describe, expect, it } from 'vitest';
import type { BBox } from '../src/geo/geojson.js';
import { BoxGrid } from '../src/registry/box-grid.js';
import { createInMemoryRegistry } from '../src/registry/in-memory-registry.js';
import { square } from './helpers/fixtures.js';

/**
 * The registry asks a coarse grid (registry/box-grid.ts) before searching its R-trees: a grid that
 * said "nothing here" where the R-tree finds a box would lose a stand or a zone, and with it a
 * decision. So the grid is checked against the R-tree itself, on random boxes and queries.
 */
const coordinate = (lo: number, hi: number) => fc.double({ min: lo, max: hi, noNaN: true });
const box = (lo: number, hi: number, maxSize: number) =>
  fc
    .tuple(coordinate(lo, hi), coordinate(lo, hi), coordinate(0, maxSize), coordinate(0, maxSize))
    .map(([x, y, w, h]): BBox => [x, y, x + w, y + h]);

describe('BoxGrid: the filter before an R-tree search', () => {
  it('never says "nothing here" where the R-tree finds a box (edges included)', () => {
    fc.assert(
      fc.property(
        fc.array(box(-48.5, -47.5, 0.03), { minLength: 1, maxLength: 60 }),
        fc.array(box(-48.6, -47.4, 0.004), { minLength: 1, maxLength: 60 }),
        (boxes, queries) => {
          const grid = new BoxGrid(boxes);
          const index = new Flatbush(boxes.length);
          for (const [a, b, c, d] of boxes) index.add(a, b, c, d);
          index.finish();
          for (const [a, b, c, d] of queries) {
            if (index.search(a, b, c, d).length > 0) expect(grid.mayIntersect(a, b, c, d)).toBe(true);
          }
          // A query on a box's own corner touches it.
          const [a, b] = boxes[0] as BBox;
          expect(grid.mayIntersect(a, b, a, b)).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('says "nothing here" away from every box, and stays within its cell budget over a country', () => {
    const grid = new BoxGrid([
      [-47.9, -15.8, -47.899, -15.799],
      [-48.5, -1.45, -48.499, -1.449],
    ]);
    expect(grid.mayIntersect(-47.9005, -15.8005, -47.8995, -15.7995)).toBe(true);
    expect(grid.mayIntersect(-47.95, -15.85, -47.94, -15.84)).toBe(false);
    expect(grid.mayIntersect(-40, -10, -39, -9)).toBe(false);
    const country = new BoxGrid([
      [-73.99, -33.75, -73.9, -33.7],
      [-34.8, 5.2, -34.79, 5.27],
    ]);
    expect(country.mayIntersect(-73.95, -33.72, -73.95, -33.72)).toBe(true);
    expect(country.mayIntersect(-50, -15, -50, -15)).toBe(false);
  });

  it('leaves the registry’s answers as a search of every stand and zone gives them', () => {
    const P = { lat: -15.7975, lon: -47.8919 };
    const registry = createInMemoryRegistry({
      stands: [
        {
          id: 's',
          pack: 'df-taxi',
          name: 'Ponto',
          geometry: square(P.lat, P.lon, 25),
          places: 3,
          kind: 'livre',
          holderVehicleIds: [],
        },
      ],
      zones: [
        {
          id: 'z',
          pack: 'df-taxi',
          kind: 'unpaved',
          name: 'Zona',
          geometry: square(P.lat + 0.01, P.lon, 400),
        },
      ],
    });
    const at = Date.parse('2026-03-04T12:00:00Z');
    expect(registry.standsAt(P.lat, P.lon, at, 'df-taxi').map((h) => h.stand.id)).toEqual(['s']);
    // 30 m outside the 25 m half-side: found with a 40 m margin, not without.
    expect(registry.standsAt(P.lat + 0.0005, P.lon, at, 'df-taxi')).toEqual([]);
    expect(registry.standsAt(P.lat + 0.0005, P.lon, at, 'df-taxi', 40).map((h) => h.stand.id)).toEqual(['s']);
    expect(registry.zonesAt(P.lat + 0.01, P.lon, at, 'df-taxi', ['unpaved']).map((h) => h.zone.id)).toEqual(['z']);
    expect(registry.zonesAt(P.lat + 0.03, P.lon, at, 'df-taxi', ['unpaved'])).toEqual([]);
  });
});
