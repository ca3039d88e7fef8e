/**
 * Groups of vehicles for the zoomed-out map, on a grid fixed to the world: at zoom z a cell is
 * `cellPx` screen pixels across (a power of two dividing 512), and the cells of z + 1 are its quarters, so a group only changes
 * when vehicles cross a cell's edge or the zoom passes an integer (panning never regroups). A cell
 * holding at least `minPoints` vehicles is drawn as one group at their mean position; the
 * vehicles of sparser cells are drawn one by one, so a small fleet is never grouped.
 */
export interface ClusterOptions {
  cellPx: number;
  minPoints: number;
  /** Past this zoom every vehicle is its own marker. */
  maxZoom: number;
}

export const clusterOptions: ClusterOptions = { cellPx: 64, minPoints: 20, maxZoom: 11 };

/** MapLibre's world is 512 pixels across at zoom 0. */
const tileSizePx = 512;

export interface Cluster {
  /** Web Mercator, 0..1 across the world. */
  x: number;
  y: number;
  count: number;
  /** The grid cells at `zoom` it took in, to find its members again (see `expansionZoom`). */
  cells: number[];
  zoom: number;
}

export interface Clustering {
  clusters: Cluster[];
  /**
   * Per slot: the index in `clusters` of the group it is drawn in, or -1 when drawn on its own
   * (the first `count` entries; the array may be longer when the caller lent it).
   */
  clusterOf: Int32Array;
}

function cellsPerSide(zoom: number, options: ClusterOptions): number {
  return (tileSizePx / options.cellPx) * 2 ** zoom;
}

function cellOf(x: number, y: number, side: number): number {
  const cx = Math.min(side - 1, Math.max(0, Math.floor(x * side)));
  const cy = Math.min(side - 1, Math.max(0, Math.floor(y * side)));
  return cy * side + cx;
}

interface Cell {
  cell: number;
  n: number;
  sx: number;
  sy: number;
  /** The index of the group that took it in, or -1. */
  group: number;
}

/**
 * The groups of the `count` vehicles whose Mercator positions are `xs`/`ys` at integer `zoom`
 * (callers pass `Math.floor` of the map's zoom). Above `options.maxZoom` there are none.
 *
 * A dense cell also takes in the cells around it whose vehicles' mean lies within `cellPx` of its
 * own, densest first: a city straddling a cell edge is one group, not two circles on top of each
 * other, and the stragglers beside a group are counted in it.
 */
export function clusterVehicles(
  xs: Float64Array,
  ys: Float64Array,
  count: number,
  zoom: number,
  options: ClusterOptions = clusterOptions,
  /** Reused for `clusterOf` when it holds `count` entries: a page redraws twice a second. */
  into?: Int32Array,
): Clustering {
  const clusterOf = into && into.length >= count ? into : new Int32Array(count);
  clusterOf.fill(-1, 0, count);
  if (zoom > options.maxZoom) return { clusters: [], clusterOf };
  const side = cellsPerSide(zoom, options);
  const cells = new Map<number, Cell>();
  for (let i = 0; i < count; i++) {
    const x = xs[i] ?? 0;
    const y = ys[i] ?? 0;
    const cell = cellOf(x, y, side);
    const entry = cells.get(cell);
    if (entry) {
      entry.n++;
      entry.sx += x;
      entry.sy += y;
    } else cells.set(cell, { cell, n: 1, sx: x, sy: y, group: -1 });
  }
  const seeds = [...cells.values()].filter((c) => c.n >= options.minPoints).sort((a, b) => b.n - a.n);
  const clusters: Cluster[] = [];
  // Within `cellPx` on screen: in cell widths, 1; the cells up to two away can hold such a mean.
  const reach = 1 / side;
  for (const seed of seeds) {
    if (seed.group >= 0) continue;
    const group = clusters.length;
    const mx = seed.sx / seed.n;
    const my = seed.sy / seed.n;
    const taken = [seed];
    seed.group = group;
    const cx = seed.cell % side;
    const cy = Math.floor(seed.cell / side);
    for (let dy = -2; dy <= 2; dy++)
      for (let dx = -2; dx <= 2; dx++) {
        if ((dx === 0 && dy === 0) || cx + dx < 0 || cy + dy < 0 || cx + dx >= side || cy + dy >= side) continue;
        const other = cells.get((cy + dy) * side + cx + dx);
        if (!other || other.group >= 0) continue;
        if (Math.hypot(other.sx / other.n - mx, other.sy / other.n - my) > reach) continue;
        other.group = group;
        taken.push(other);
      }
    let n = 0;
    let sx = 0;
    let sy = 0;
    for (const cell of taken) {
      n += cell.n;
      sx += cell.sx;
      sy += cell.sy;
    }
    clusters.push({ x: sx / n, y: sy / n, count: n, cells: taken.map((c) => c.cell), zoom });
  }
  if (clusters.length > 0)
    for (let i = 0; i < count; i++) clusterOf[i] = cells.get(cellOf(xs[i] ?? 0, ys[i] ?? 0, side))?.group ?? -1;
  return { clusters, clusterOf };
}

/**
 * The zoom at which a group comes apart: the first at which its vehicles are no longer one group,
 * or past `maxZoom`.
 */
export function expansionZoom(
  cluster: Cluster,
  xs: Float64Array,
  ys: Float64Array,
  count: number,
  options: ClusterOptions = clusterOptions,
): number {
  const side = cellsPerSide(cluster.zoom, options);
  const cells = new Set(cluster.cells);
  const inside: number[] = [];
  for (let i = 0; i < count; i++) if (cells.has(cellOf(xs[i] ?? 0, ys[i] ?? 0, side))) inside.push(i);
  const memberXs = Float64Array.from(inside, (i) => xs[i] ?? 0);
  const memberYs = Float64Array.from(inside, (i) => ys[i] ?? 0);
  for (let zoom = cluster.zoom + 1; zoom <= options.maxZoom; zoom++) {
    const { clusters } = clusterVehicles(memberXs, memberYs, inside.length, zoom, options);
    if (clusters.length !== 1 || clusters[0]?.count !== inside.length) return zoom;
  }
  return options.maxZoom + 1;
}
