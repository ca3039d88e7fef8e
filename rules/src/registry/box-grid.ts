import type { BBox } from '../geo/geojson.js';

/** Cells of at least this size (degrees, ≈ 220 m of latitude): a 50 m stand touches one to four. */
const TARGET_CELL_DEG = 0.002;
/** At most this many cells (one byte each): a registry spanning the country gets coarser cells. */
const MAX_CELLS = 1 << 21;

/**
 * Which cells of a coarse grid over the boxes' extent any box touches: asked before an R-tree
 * search so that a position near nothing (a taxi at no stand, a bus outside every zone: most
 * samples) is answered without searching. A search allocates its queue and result lists: the stand
 * and zone look-ups were ≈ 6 % of the bytes `npm run bench:rules` allocated (V8's sampling heap
 * profiler, garbage included), and every byte brings the next young-generation collection closer.
 *
 * Exact as a filter: a box that intersects the query box shares a point with it, and that point's
 * cell is marked (the box covers it) and examined (the query covers it), cell indexes being a
 * monotonic function of the coordinate. So `mayIntersect` false means the search would find
 * nothing; true means search.
 */
export class BoxGrid {
  private readonly x0: number;
  private readonly y0: number;
  private readonly cell: number;
  private readonly nx: number;
  private readonly ny: number;
  private readonly cells: Uint8Array;

  constructor(boxes: readonly BBox[]) {
    let minX = Number.POSITIVE_INFINITY;
    let minY = Number.POSITIVE_INFINITY;
    let maxX = Number.NEGATIVE_INFINITY;
    let maxY = Number.NEGATIVE_INFINITY;
    for (const [a, b, c, d] of boxes) {
      minX = Math.min(minX, a);
      minY = Math.min(minY, b);
      maxX = Math.max(maxX, c);
      maxY = Math.max(maxY, d);
    }
    if (boxes.length === 0) {
      minX = 0;
      minY = 0;
      maxX = 0;
      maxY = 0;
    }
    this.x0 = minX;
    this.y0 = minY;
    let cell = TARGET_CELL_DEG;
    while (Math.floor((maxX - minX) / cell + 1) * Math.floor((maxY - minY) / cell + 1) > MAX_CELLS) cell *= 2;
    this.cell = cell;
    this.nx = Math.floor((maxX - minX) / cell) + 1;
    this.ny = Math.floor((maxY - minY) / cell) + 1;
    this.cells = new Uint8Array(this.nx * this.ny);
    for (const [a, b, c, d] of boxes) {
      const ix1 = this.column(c);
      const iy1 = this.row(d);
      for (let ix = this.column(a); ix <= ix1; ix++) {
        for (let iy = this.row(b); iy <= iy1; iy++) this.cells[ix * this.ny + iy] = 1;
      }
    }
  }

  /** Could a box intersect [minX, maxX] × [minY, maxY] (edges included, as in the R-tree)? */
  mayIntersect(minX: number, minY: number, maxX: number, maxY: number): boolean {
    const ix0 = Math.max(0, this.column(minX));
    const iy0 = Math.max(0, this.row(minY));
    const ix1 = Math.min(this.nx - 1, this.column(maxX));
    const iy1 = Math.min(this.ny - 1, this.row(maxY));
    for (let ix = ix0; ix <= ix1; ix++) {
      for (let iy = iy0; iy <= iy1; iy++) if (this.cells[ix * this.ny + iy] === 1) return true;
    }
    return false;
  }

  private column(x: number): number {
    return Math.floor((x - this.x0) / this.cell);
  }

  private row(y: number): number {
    return Math.floor((y - this.y0) / this.cell);
  }
}
