import type { Pack } from '@vigia/core';
import { describe, expect, it } from 'vitest';
import { distanceM, distanceToPolylineM, headingDifferenceDeg } from '../src/geo.js';
import { CITIES, cityGraph } from '../src/network/cities.js';
import { MAX_PLACE_SNAP_M, MAX_VERTEX_SPACING_M } from '../src/network/graph.js';
import { resolveCharterLine } from '../src/vehicles/charter-line.js';

const packs = Object.keys(CITIES) as Pack[];

describe.each(packs)('road network of %s', (pack) => {
  const graph = cityGraph(pack);
  const places = [...graph.places.values()];

  it('puts every place on a road', () => {
    for (const p of places) expect(p.snapM, p.id).toBeLessThanOrEqual(MAX_PLACE_SNAP_M);
  });

  it('routes from every place to every other along connected roads', () => {
    for (const a of places) {
      for (const b of places) {
        if (a.node === b.node) continue;
        const path = graph.route(a.node, b.node);
        expect(path, `${a.id} → ${b.id}`).toBeDefined();
        if (!path) continue;
        expect(distanceM(path.start, graph.node(a.node))).toBeLessThan(0.01);
        expect(distanceM(path.end, graph.node(b.node))).toBeLessThan(0.01);
        // Consecutive vertices are close and every vertex lies on a road of the city.
        for (let i = 1; i < path.points.length; i++) {
          expect(path.cumM[i]! - path.cumM[i - 1]!).toBeLessThanOrEqual(MAX_VERTEX_SPACING_M + 0.5);
        }
      }
    }
  });

  it('draws roads with vertices that trace them (no leaps) and junctions that connect them', () => {
    for (const { road, points } of graph.polylines) {
      for (let i = 1; i < points.length; i++) {
        expect(distanceM(points[i - 1]!, points[i]!), road.id).toBeLessThanOrEqual(MAX_VERTEX_SPACING_M + 0.5);
      }
      // A real road does not fold back on itself between two vertices.
      const bearings = points
        .slice(1)
        .map((p, i) => Math.atan2(p.lon - points[i]!.lon, p.lat - points[i]!.lat) * (180 / Math.PI));
      for (let i = 1; i < bearings.length; i++) {
        expect(headingDifferenceDeg(bearings[i - 1]!, bearings[i]!), `${road.id} at vertex ${i}`).toBeLessThan(135);
      }
    }
  });

  it('keeps every route vertex on a polyline of the city', () => {
    const a = places[0]!;
    const b = places[places.length - 1]!;
    const path = graph.route(a.node, b.node)!;
    for (const p of path.points) {
      const nearest = Math.min(...graph.polylines.map((l) => distanceToPolylineM(p, l.points)));
      expect(nearest).toBeLessThan(0.5);
    }
  });
});

describe('charter lines', () => {
  it('resolve to routes between their declared places in both directions', () => {
    const graph = cityGraph('sp-fretamento');
    for (const def of CITIES['sp-fretamento'].charterLines ?? []) {
      const line = resolveCharterLine(graph, def);
      expect(line.legs.morning).toHaveLength(def.placeIds.length - 1);
      expect(line.legs.evening).toHaveLength(def.placeIds.length - 1);
      expect(def.suburbPlaces).toBeGreaterThan(0);
      expect(def.suburbPlaces).toBeLessThan(def.placeIds.length);
      for (const id of def.placeIds) expect(graph.place(id).kind).toBe('charter-point');
    }
  });
});
