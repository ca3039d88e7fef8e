import { haversineM, METRES_PER_DEGREE } from '@vigia/rules';
import { describe, expect, it } from 'vitest';
import { NAMED_STREET_SLACK_M, type RoadClass, type RoadFeature, StreetIndex } from '../src/places/street-index.js';

/**
 * The street index alone (api/src/places/street-index.ts), on hand-made lines whose distances are
 * worked out by hand: on the equator a degree is METRES_PER_DEGREE (111 195 m) both ways; at 60° S
 * a degree of longitude is half that.
 */

const line = (name: string | null, coordinates: [number, number][], cls: RoadClass = 'residential'): RoadFeature => ({
  type: 'Feature',
  properties: { name, class: cls },
  geometry: { type: 'LineString', coordinates },
});

const m = METRES_PER_DEGREE;
/** Degrees for `metres` north–south (or east–west on the equator). */
const deg = (metres: number) => metres / m;

describe('StreetIndex', () => {
  it('measures the perpendicular distance to a segment, and to its nearer end beyond it', () => {
    // An east–west street on the equator from lon 0 to lon 0.01 (1 112 m).
    const index = new StreetIndex([
      line('Rua A', [
        [0, 0],
        [0.01, 0],
      ]),
    ]);
    // 50 m north of its middle: 50 m.
    expect(index.nearest(deg(50), 0.005, 150)).toEqual({ name: 'Rua A', class: 'residential', distanceM: 50 });
    // 30 m west of its west end, 40 m north: the end is the nearest point, 50 m (3-4-5).
    expect(index.nearest(deg(40), -deg(30), 150)?.distanceM).toBe(50);
    // On the street: 0.
    expect(index.nearest(0, 0.003, 150)?.distanceM).toBe(0);
  });

  it('measures a diagonal segment across its vertices, and scales longitude by latitude', () => {
    // A diagonal from (0, 0) to (0.001, 0.001): the point (lat 0, lon 0.001) is 0.001° / √2 from it.
    const diagonal = new StreetIndex([
      line('Diagonal', [
        [0, 0],
        [0.0005, 0.0005],
        [0.001, 0.001],
      ]),
    ]);
    expect(diagonal.nearest(0, 0.001, 150)?.distanceM).toBeCloseTo((0.001 * m) / Math.SQRT2, 1);
    // At 60° S a degree of longitude is m/2: a point 0.001° of longitude east of a north–south street is 55.6 m.
    const south = new StreetIndex([
      line('Rua Sul', [
        [10, -60.01],
        [10, -59.99],
      ]),
    ]);
    const hit = south.nearest(-60, 10.001, 150);
    expect(hit?.distanceM).toBeCloseTo((0.001 * m) / 2, 0);
    // Within a few decimetres of the great-circle distance at that range.
    expect(Math.abs((hit?.distanceM ?? 0) - haversineM(-60, 10.001, -60, 10))).toBeLessThan(0.5);
  });

  it('answers the nearest of several lines, nothing beyond the maximum distance, nothing from an empty index', () => {
    const index = new StreetIndex([
      line(
        'Rua Norte',
        [
          [0, deg(60)],
          [0.01, deg(60)],
        ],
        'primary',
      ),
      line(
        'Rua Sul',
        [
          [0, -deg(40)],
          [0.01, -deg(40)],
        ],
        'secondary',
      ),
    ]);
    expect(index.segmentCount).toBe(2);
    expect(index.nearest(0, 0.005, 150)).toEqual({ name: 'Rua Sul', class: 'secondary', distanceM: 40 });
    expect(index.nearest(deg(25), 0.005, 150)).toEqual({ name: 'Rua Norte', class: 'primary', distanceM: 35 });
    // 100 m south of Rua Sul, 200 m from Rua Norte: within 150 m only Rua Sul; within 90 m nothing.
    expect(index.nearest(-deg(140), 0.005, 150)?.name).toBe('Rua Sul');
    expect(index.nearest(-deg(140), 0.005, 90)).toBeNull();
    expect(new StreetIndex([]).nearest(0, 0, 150)).toBeNull();
  });

  it(`prefers a named street at most ${NAMED_STREET_SLACK_M} m farther than an unnamed nearest line`, () => {
    const unnamedAt10 = line(
      null,
      [
        [0, deg(10)],
        [0.01, deg(10)],
      ],
      'unknown',
    );
    // Named 12 m farther (22 m): named wins; 20 m farther (30 m): the unnamed line stands.
    const near = new StreetIndex([
      unnamedAt10,
      line(
        'Avenida Perto',
        [
          [0, -deg(22)],
          [0.01, -deg(22)],
        ],
        'primary',
      ),
    ]);
    expect(near.nearest(0, 0.005, 150)).toEqual({ name: 'Avenida Perto', class: 'primary', distanceM: 22 });
    const far = new StreetIndex([
      unnamedAt10,
      line(
        'Avenida Longe',
        [
          [0, -deg(30)],
          [0.01, -deg(30)],
        ],
        'primary',
      ),
    ]);
    expect(far.nearest(0, 0.005, 150)).toEqual({ name: null, class: 'unknown', distanceM: 10 });
    // The named street must be within the maximum distance too.
    expect(near.nearest(0, 0.005, 20)).toEqual({ name: null, class: 'unknown', distanceM: 10 });
    // With no named line at all (Brasília's data), the nearest unnamed one.
    expect(new StreetIndex([unnamedAt10]).nearest(0, 0.005, 150)?.name).toBeNull();
  });
});
