import { describe, expect, it } from 'vitest';
import { distanceToAreaM, pointInArea } from '../src/geo/area.js';
import { haversineM, pointToSegmentM } from '../src/geo/distance.js';
import type { AreaGeometry } from '../src/geo/geojson.js';
import { square } from './helpers/fixtures.js';
import { offset } from './helpers/trace.js';

describe('geodesy', () => {
  it('measures a degree of latitude as about 111.2 km and a quarter meridian as π/2 Earth radii', () => {
    expect(haversineM(0, 0, 1, 0)).toBeCloseTo(111_195, -1);
    expect(haversineM(0, 0, 90, 0)).toBeCloseTo((Math.PI / 2) * 6_371_008.8, 0);
    // A degree of longitude shrinks with the cosine of the latitude (Belém is near the equator, São Paulo is not).
    expect(haversineM(-23.55, -46.63, -23.55, -45.63)).toBeCloseTo(111_195 * Math.cos((23.55 * Math.PI) / 180), -2);
  });

  it('measures point-to-segment distance to the interior and to the ends', () => {
    const a = offset(-15.8, -47.9, 0, 0);
    const b = offset(-15.8, -47.9, 1000, 90);
    const mid = offset(-15.8, -47.9, 500, 90);
    const above = offset(mid.lat, mid.lon, 40, 0);
    expect(pointToSegmentM(above.lat, above.lon, [a.lon, a.lat], [b.lon, b.lat])).toBeCloseTo(40, 0);
    const beyond = offset(b.lat, b.lon, 30, 90);
    expect(pointToSegmentM(beyond.lat, beyond.lon, [a.lon, a.lat], [b.lon, b.lat])).toBeCloseTo(30, 0);
  });

  it('tests points in polygons with holes and measures the distance to the edge', () => {
    const outer = square(-1.45, -48.49, 100).coordinates[0] as [number, number][];
    const hole = square(-1.45, -48.49, 20).coordinates[0] as [number, number][];
    const area: AreaGeometry = { type: 'Polygon', coordinates: [outer, hole] };
    const inRing = offset(-1.45, -48.49, 50, 0);
    expect(pointInArea(inRing.lat, inRing.lon, area)).toBe(true);
    expect(pointInArea(-1.45, -48.49, area)).toBe(false);
    const outside = offset(-1.45, -48.49, 130, 0);
    expect(pointInArea(outside.lat, outside.lon, area)).toBe(false);
    expect(distanceToAreaM(outside.lat, outside.lon, area)).toBeCloseTo(30, 0);
    expect(distanceToAreaM(inRing.lat, inRing.lon, area)).toBe(0);
  });
});
