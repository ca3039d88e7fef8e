import { cellToLatLng, getHexagonEdgeLengthAvg, latLngToCell } from 'h3-js';
import type { HeatCell } from './analytics-schemas.js';

const METRES_PER_DEGREE = 111_195;

/**
 * The grid the heat map's SQL counts violations on before they are binned into H3 cells: a
 * quarter of the cells' average edge (res 8: about 115 m, 0.001°). A violation is binned by its
 * grid point, so one within about an eighth of an edge of a cell border may be counted in the
 * neighbouring cell: the map's own resolution, never a count that matters (the counts per rule
 * and the total are exact).
 */
export function heatGridStepDeg(resolution: number): number {
  return getHexagonEdgeLengthAvg(resolution, 'm') / 4 / METRES_PER_DEGREE;
}

/** Counts per grid point → counts per H3 cell at `resolution`, most first, each with its centre. */
export function heatCells(
  points: readonly { lat: number; lon: number; count: number }[],
  resolution: number,
): HeatCell[] {
  const counts = new Map<string, number>();
  for (const p of points) {
    const cell = latLngToCell(p.lat, p.lon, resolution);
    counts.set(cell, (counts.get(cell) ?? 0) + p.count);
  }
  return [...counts]
    .map(([h3, count]) => {
      const [lat, lon] = cellToLatLng(h3);
      return { h3, lat, lon, count };
    })
    .sort((a, b) => b.count - a.count || (a.h3 < b.h3 ? -1 : 1));
}
