import { describe, expect, it } from 'vitest';
import { ClusterWorkspace, clusterOptions, clusterVehicles, expansionZoom } from '../src/vehicle-clusters.js';

/** The zoomed-out map's groups (src/vehicle-clusters.ts): dense cells grouped, sparse ones left alone. */

const mercator = (lon: number, lat: number) => {
  const sin = Math.sin((lat * Math.PI) / 180);
  return { x: (lon + 180) / 360, y: 0.5 - (0.25 * Math.log((1 + sin) / (1 - sin))) / Math.PI };
};

function fleet(points: Array<{ lon: number; lat: number }>): { xs: Float64Array; ys: Float64Array } {
  const xs = new Float64Array(points.length);
  const ys = new Float64Array(points.length);
  points.forEach((point, i) => {
    const { x, y } = mercator(point.lon, point.lat);
    xs[i] = x;
    ys[i] = y;
  });
  return { xs, ys };
}

/** `count` vehicles within about 50 m of a point. */
const patch = (lon: number, lat: number, count: number) =>
  Array.from({ length: count }, (_, i) => ({ lon: lon + (i % 7) * 0.0001, lat: lat + Math.floor(i / 7) * 0.0001 }));

describe('vehicle clusters', () => {
  it('groups a dense patch into one cluster with its count and mean position, and leaves a sparse one alone', () => {
    const points = [...patch(-46.63, -23.55, 50), ...patch(-47.88, -15.79, 5)];
    const { xs, ys } = fleet(points);
    const { clusters, clusterOf } = clusterVehicles(xs, ys, points.length, 10);
    expect(clusters).toHaveLength(1);
    expect(clusters[0]?.count).toBe(50);
    const mean = (values: Float64Array) => values.slice(0, 50).reduce((sum, v) => sum + v, 0) / 50;
    expect(clusters[0]?.x).toBeCloseTo(mean(xs), 12);
    expect(clusters[0]?.y).toBeCloseTo(mean(ys), 12);
    expect([...clusterOf.slice(0, 50)].every((index) => index === 0)).toBe(true);
    expect([...clusterOf.slice(50)].every((index) => index === -1)).toBe(true);
  });

  it('makes one group of a patch that straddles a cell edge', () => {
    const zoom = 8;
    const side = (512 / clusterOptions.cellPx) * 2 ** zoom;
    const edge = 700 / side;
    const middle = (300 + 0.5) / side;
    // 40 vehicles within a tenth of a cell either side of the edge.
    const xs = Float64Array.from(
      { length: 40 },
      (_, i) => edge + ((i % 2 === 0 ? 1 : -1) * (1 + (i % 5))) / (50 * side),
    );
    const ys = Float64Array.from({ length: 40 }, (_, i) => middle + (i % 3) / (50 * side));
    const { clusters } = clusterVehicles(xs, ys, 40, zoom);
    expect(clusters.map((c) => c.count)).toEqual([40]);
  });

  it('draws every vehicle on its own past the grouping zoom', () => {
    const points = patch(-46.63, -23.55, 50);
    const { xs, ys } = fleet(points);
    const { clusters, clusterOf } = clusterVehicles(xs, ys, points.length, clusterOptions.maxZoom + 1);
    expect(clusters).toEqual([]);
    expect([...clusterOf].every((index) => index === -1)).toBe(true);
  });

  it('never groups fewer than the minimum in a cell', () => {
    const points = patch(-46.63, -23.55, clusterOptions.minPoints - 1);
    const { xs, ys } = fleet(points);
    expect(clusterVehicles(xs, ys, points.length, 4).clusters).toEqual([]);
  });

  it('groups the same with a workspace kept across moves, removals and zoom changes as afresh', () => {
    // Three dense cities of 3 000 vehicles (many cells with equal counts, so the densest-first
    // order's tie-break matters), moved a little before each call as live pushes move them.
    let seed = 12;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed / 2_147_483_648;
    };
    const spread = () => (random() + random() + random() - 1.5) * 0.12;
    const cities = [mercator(-46.63, -23.55), mercator(-47.88, -15.79), mercator(-48.49, -1.42)];
    const n = 9000;
    const xs = new Float64Array(n);
    const ys = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const city = cities[i % 3] ?? { x: 0, y: 0 };
      xs[i] = city.x + spread() / 360;
      ys[i] = city.y + spread() / 360;
    }
    const workspace = new ClusterWorkspace();
    let groups = 0;
    for (const zoom of [11, 11, 9, 9, 4, 11, 12, 10, 11]) {
      for (let i = 0; i < n; i++)
        if (random() < 0.1) {
          xs[i] = (xs[i] ?? 0) + (random() - 0.5) * 1e-5;
          ys[i] = (ys[i] ?? 0) + (random() - 0.5) * 1e-5;
        }
      // The layer's slots shrink when vehicles are removed: the workspace sees fewer.
      const count = n - Math.floor(random() * 100);
      const kept = clusterVehicles(xs, ys, count, zoom, clusterOptions, workspace);
      const fresh = clusterVehicles(xs, ys, count, zoom);
      expect(kept.clusters).toEqual(fresh.clusters);
      expect([...kept.clusterOf.slice(0, count)]).toEqual([...fresh.clusterOf.slice(0, count)]);
      groups += fresh.clusters.length;
    }
    expect(groups).toBeGreaterThan(100);
  });

  it('names the zoom at which a group comes apart', () => {
    // Two dense patches 2 km apart: one cell at country scale, apart at some zoom below street scale.
    const points = [...patch(-46.63, -23.55, 30), ...patch(-46.61, -23.55, 30)];
    const { xs, ys } = fleet(points);
    const [cluster] = clusterVehicles(xs, ys, points.length, 5).clusters;
    expect(cluster?.count).toBe(60);
    if (!cluster) return;
    const zoom = expansionZoom(cluster, xs, ys, points.length);
    expect(zoom).toBeGreaterThan(5);
    expect(zoom).toBeLessThanOrEqual(clusterOptions.maxZoom + 1);
    // At that zoom the group is gone: its vehicles are in two groups or on their own.
    const after = clusterVehicles(xs, ys, points.length, zoom).clusters;
    expect(after.some((c) => c.count === 60)).toBe(false);
    // One zoom earlier it still held together.
    expect(clusterVehicles(xs, ys, points.length, zoom - 1).clusters.some((c) => c.count === 60)).toBe(true);
  });
});
