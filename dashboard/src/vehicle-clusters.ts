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
  /** The grid cell at `zoom`, to find its members again (see `expansionZoom`). */
  cell: number;
  zoom: number;
}

export interface Clustering {
  clusters: Cluster[];
  /** Per slot: the index in `clusters` of the group it is drawn in, or -1 when drawn on its own. */
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

/**
 * The groups of the `count` vehicles whose Mercator positions are `xs`/`ys` at integer `zoom`
 * (callers pass `Math.floor` of the map's zoom). Above `options.maxZoom` there are none.
 */
export function clusterVehicles(
  xs: Float64Array,
  ys: Float64Array,
  count: number,
  zoom: number,
  options: ClusterOptions = clusterOptions,
): Clustering {
  const clusterOf = new Int32Array(count).fill(-1);
  if (zoom > options.maxZoom) return { clusters: [], clusterOf };
  const side = cellsPerSide(zoom, options);
  const cells = new Int32Array(count);
  const members = new Map<number, { n: number; sx: number; sy: number }>();
  for (let i = 0; i < count; i++) {
    const x = xs[i] ?? 0;
    const y = ys[i] ?? 0;
    const cell = cellOf(x, y, side);
    cells[i] = cell;
    const entry = members.get(cell);
    if (entry) {
      entry.n++;
      entry.sx += x;
      entry.sy += y;
    } else members.set(cell, { n: 1, sx: x, sy: y });
  }
  const clusters: Cluster[] = [];
  const indexOfCell = new Map<number, number>();
  for (const [cell, entry] of members) {
    if (entry.n < options.minPoints) continue;
    indexOfCell.set(cell, clusters.length);
    clusters.push({ x: entry.sx / entry.n, y: entry.sy / entry.n, count: entry.n, cell, zoom });
  }
  if (clusters.length > 0) for (let i = 0; i < count; i++) clusterOf[i] = indexOfCell.get(cells[i] ?? -1) ?? -1;
  return { clusters, clusterOf };
}

/**
 * The zoom at which a group comes apart: the first at which its vehicles fall in more than one
 * cell or in a cell too sparse to group, or past `maxZoom`.
 */
export function expansionZoom(
  cluster: Cluster,
  xs: Float64Array,
  ys: Float64Array,
  count: number,
  options: ClusterOptions = clusterOptions,
): number {
  const side = cellsPerSide(cluster.zoom, options);
  const inside: number[] = [];
  for (let i = 0; i < count; i++) if (cellOf(xs[i] ?? 0, ys[i] ?? 0, side) === cluster.cell) inside.push(i);
  for (let zoom = cluster.zoom + 1; zoom <= options.maxZoom; zoom++) {
    const finer = cellsPerSide(zoom, options);
    const tally = new Map<number, number>();
    for (const i of inside) {
      const cell = cellOf(xs[i] ?? 0, ys[i] ?? 0, finer);
      tally.set(cell, (tally.get(cell) ?? 0) + 1);
    }
    if (tally.size > 1 || [...tally.values()].some((n) => n < options.minPoints)) return zoom;
  }
  return options.maxZoom + 1;
}
