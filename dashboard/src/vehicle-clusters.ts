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
   * (the first `count` entries; a workspace's array may be longer).
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

/**
 * What `clusterVehicles` works in, kept by a caller that groups its fleet at every redraw (the
 * layer, twice a second with 20 000 vehicles): the grid's cells keep their dense index from one
 * call to the next at the same zoom, and their sums live in typed arrays, so a call allocates only
 * the groups it returns. Made afresh per call it gave a fifth of the desk page's heap allocations
 * at city zoom (a Map entry and an object per cell, every push).
 */
export class ClusterWorkspace {
  /** Dense index of each grid cell met at `zoom` (kept while the zoom stays; empty cells stay listed). */
  readonly indexOfCell = new Map<number, number>();
  zoom = Number.NaN;
  /** Per dense index: the cell, its vehicle count, the sums of their positions, the first slot met, its group. */
  cell = new Float64Array(256);
  n = new Int32Array(256);
  sx = new Float64Array(256);
  sy = new Float64Array(256);
  firstSlot = new Int32Array(256);
  group = new Int32Array(256);
  /** Per slot: the dense index of its cell, then (see `Clustering`) its group. */
  slotCell = new Int32Array(0);
  clusterOf = new Int32Array(0);

  /** The dense index of `cell`, listed if new. */
  indexOf(cell: number): number {
    let index = this.indexOfCell.get(cell);
    if (index === undefined) {
      index = this.indexOfCell.size;
      if (index >= this.n.length) this.grow();
      this.indexOfCell.set(cell, index);
      this.cell[index] = cell;
      this.n[index] = 0;
    }
    return index;
  }

  /** Forgets the cells listed (another zoom, or too many empty ones kept). */
  reset(zoom: number): void {
    this.indexOfCell.clear();
    this.zoom = zoom;
  }

  private grow(): void {
    const size = this.n.length * 2;
    const wider = <T extends Float64Array | Int32Array>(old: T, fresh: T): T => {
      fresh.set(old);
      return fresh;
    };
    this.cell = wider(this.cell, new Float64Array(size));
    this.n = wider(this.n, new Int32Array(size));
    this.sx = wider(this.sx, new Float64Array(size));
    this.sy = wider(this.sy, new Float64Array(size));
    this.firstSlot = wider(this.firstSlot, new Int32Array(size));
    this.group = wider(this.group, new Int32Array(size));
  }
}

/**
 * The groups of the `count` vehicles whose Mercator positions are `xs`/`ys` at integer `zoom`
 * (callers pass `Math.floor` of the map's zoom). Above `options.maxZoom` there are none.
 *
 * A dense cell also takes in the cells around it whose vehicles' mean lies within `cellPx` of its
 * own, densest first (equally dense: the one whose first vehicle comes first): a city straddling a
 * cell edge is one group, not two circles on top of each other, and the stragglers beside a group
 * are counted in it.
 *
 * With a `workspace` the returned `clusterOf` is the workspace's own array, valid until the next call.
 */
export function clusterVehicles(
  xs: Float64Array,
  ys: Float64Array,
  count: number,
  zoom: number,
  options: ClusterOptions = clusterOptions,
  workspace: ClusterWorkspace = new ClusterWorkspace(),
): Clustering {
  const w = workspace;
  if (w.clusterOf.length < count) {
    w.clusterOf = new Int32Array(Math.max(count, 2 * w.clusterOf.length));
    w.slotCell = new Int32Array(w.clusterOf.length);
  }
  const { clusterOf, slotCell } = w;
  clusterOf.fill(-1, 0, count);
  if (zoom > options.maxZoom) return { clusters: [], clusterOf };
  const side = cellsPerSide(zoom, options);
  // Cells that emptied stay listed at their index; past twice the fleet's size, start afresh.
  if (w.zoom !== zoom || w.indexOfCell.size > 2 * count + 64) w.reset(zoom);
  const listed = w.indexOfCell.size;
  w.n.fill(0, 0, listed);
  for (let i = 0; i < count; i++) {
    const x = xs[i] ?? 0;
    const y = ys[i] ?? 0;
    const cell = cellOf(x, y, side);
    // Most vehicles are in the cell they were in at the last call: no lookup for them.
    const before = slotCell[i] ?? -1;
    const index = before >= 0 && before < w.indexOfCell.size && w.cell[before] === cell ? before : w.indexOf(cell);
    slotCell[i] = index;
    if ((w.n[index] ?? 0) === 0) {
      w.n[index] = 1;
      w.sx[index] = x;
      w.sy[index] = y;
      w.firstSlot[index] = i;
    } else {
      w.n[index] = (w.n[index] ?? 0) + 1;
      w.sx[index] = (w.sx[index] ?? 0) + x;
      w.sy[index] = (w.sy[index] ?? 0) + y;
    }
  }
  const cells = w.indexOfCell.size;
  const seeds: number[] = [];
  for (let c = 0; c < cells; c++) {
    w.group[c] = -1;
    if ((w.n[c] ?? 0) >= options.minPoints) seeds.push(c);
  }
  seeds.sort((a, b) => (w.n[b] ?? 0) - (w.n[a] ?? 0) || (w.firstSlot[a] ?? 0) - (w.firstSlot[b] ?? 0));
  const clusters: Cluster[] = [];
  // Within `cellPx` on screen: in cell widths, 1; the cells up to two away can hold such a mean.
  const reach = 1 / side;
  for (const seed of seeds) {
    if ((w.group[seed] ?? -1) >= 0) continue;
    const group = clusters.length;
    const seedN = w.n[seed] ?? 1;
    const mx = (w.sx[seed] ?? 0) / seedN;
    const my = (w.sy[seed] ?? 0) / seedN;
    const taken = [seed];
    w.group[seed] = group;
    const seedCell = w.cell[seed] ?? 0;
    const cx = seedCell % side;
    const cy = Math.floor(seedCell / side);
    for (let dy = -2; dy <= 2; dy++)
      for (let dx = -2; dx <= 2; dx++) {
        if ((dx === 0 && dy === 0) || cx + dx < 0 || cy + dy < 0 || cx + dx >= side || cy + dy >= side) continue;
        const other = w.indexOfCell.get((cy + dy) * side + cx + dx);
        if (other === undefined || (w.group[other] ?? -1) >= 0) continue;
        const otherN = w.n[other] ?? 0;
        if (otherN === 0) continue;
        if (Math.hypot((w.sx[other] ?? 0) / otherN - mx, (w.sy[other] ?? 0) / otherN - my) > reach) continue;
        w.group[other] = group;
        taken.push(other);
      }
    let n = 0;
    let sx = 0;
    let sy = 0;
    for (const cell of taken) {
      n += w.n[cell] ?? 0;
      sx += w.sx[cell] ?? 0;
      sy += w.sy[cell] ?? 0;
    }
    clusters.push({ x: sx / n, y: sy / n, count: n, cells: taken.map((c) => w.cell[c] ?? 0), zoom });
  }
  if (clusters.length > 0) for (let i = 0; i < count; i++) clusterOf[i] = w.group[slotCell[i] ?? 0] ?? -1;
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
