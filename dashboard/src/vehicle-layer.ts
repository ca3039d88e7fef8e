import { type Map as MapLibreMap, MercatorCoordinate, type PointLike } from 'maplibre-gl';
import type { FleetStore } from './fleet-store.js';
import { type Cluster, ClusterWorkspace, clusterOptions, clusterVehicles, expansionZoom } from './vehicle-clusters.js';
import { digitAdvancePx, digitHalfHeightPx, instanceWords, packColour, shapeKind, VehicleGl } from './vehicle-gl.js';
import { statusStyles, type VehicleStatus, vehicleStatuses } from './vehicle-status.js';
import { violationColors } from './violation-style.js';

/** The class of the fleet's canvas, laid over the map's own. */
export const vehicleCanvasClass = 'vehicle-canvas';

const clusterColour = packColour('#37474f', 0.8);
const white = packColour('#ffffff');
const dimmedOpacity = 0.35;
/** Ring radii, in marker radii (both follow the zoom as markers do). */
const selectionRing = 2.2;
const violationRing = 2;

/** A group's radius in CSS pixels by how many vehicles it holds. */
function clusterRadius(count: number): number {
  if (count < 100) return 9;
  if (count < 1000) return 13;
  return count < 5000 ? 18 : 24;
}

/** Markers shrink at country scale so thousands stay readable, and grow at street scale. */
function zoomScale(zoom: number): number {
  if (zoom <= 4) return 0.6;
  if (zoom <= 11) return 0.6 + ((zoom - 4) / 7) * 0.4;
  if (zoom <= 16) return 1 + ((zoom - 11) / 5) * 0.6;
  return 1.6;
}

/** Outlines are thinner at country scale. */
function strokeScale(zoom: number): number {
  return zoom >= 11 ? 1 : zoom <= 4 ? 0.5 : 0.5 + ((zoom - 4) / 7) * 0.5;
}

const statusIndex = Object.fromEntries(vehicleStatuses.map((status, index) => [status, index])) as Record<
  VehicleStatus,
  number
>;
const statusColour = vehicleStatuses.map((status) => packColour(statusStyles[status].color));
const statusDimmedColour = vehicleStatuses.map((status) => packColour(statusStyles[status].color, dimmedOpacity));
const statusStrokeDimmed = packColour('#ffffff', dimmedOpacity);
const statusRadius = vehicleStatuses.map((status) => statusStyles[status].radiusPx);

/**
 * What is packed: the view plus a quarter of it on each side (as the live feed's margin) plus
 * `packSlackPx`, so a pan or a zoom out does not re-pack at every frame.
 */
const packMargin = 0.25;
const packSlackPx = 64;
/**
 * How far past the view's edge a packed instance can still show: the largest is a charter bus's
 * selection ring at street zoom (8 px × 2.2 × 1.6 plus its stroke, about 31 px); a group is at most
 * 24 px plus its stroke. Once the view plus this much leaves what was packed, it is packed again.
 */
const visibleReachPx = 48;

/** A rectangle in Web Mercator (y grows southwards). */
interface MercatorRect {
  minX: number;
  minY: number;
  maxX: number;
  maxY: number;
}

/** What the layer drew last, in the page's terms (for `window.vigia` and the tests). */
export interface DrawnVehicle {
  id: string;
  lon: number;
  lat: number;
  status: VehicleStatus;
}
export interface DrawnCluster {
  lon: number;
  lat: number;
  count: number;
}

/**
 * Draws the fleet with WebGL into its own canvas laid over the map's, fed from typed arrays: each
 * vehicle has a slot whose Web Mercator position and status are patched in place when the store
 * reports it changed. The canvas is redrawn on the next animation frame after a change, and in
 * every frame MapLibre draws (a camera move, tiles arriving) with that frame's matrix, so the two
 * stay in step. A live update therefore costs one small draw here and no MapLibre frame: as a
 * custom layer in the style, every update made MapLibre draw the base map and place its labels
 * again, and that frame and its garbage decided the update's cost (dashboard/README.md, "The map at
 * 20,000 vehicles"). The price is the stacking: the fleet is above every layer of the map.
 * On a redraw after any change the instances are packed in draw order (selection ring, groups,
 * markers by status, violation rings, group counts) and uploaded in one buffer; only those near the
 * view are packed, and a camera move that leaves that area packs again. Clicks are resolved here
 * too: the layer projects what it packed with the frame's own matrix and takes the nearest.
 */
export class VehicleLayer {
  // The fleet, one slot per placed vehicle (swap-removed, so slots 0..count-1 are in use).
  private count = 0;
  private ids: string[] = [];
  private readonly slotOf = new Map<string, number>();
  private xs = new Float64Array(1024);
  private ys = new Float64Array(1024);
  private statuses = new Uint8Array(1024);

  private selected: string | null = null;
  private marked: ReadonlySet<string> = new Set();
  private dimmed = false;
  /** Set when what is packed no longer matches the fleet, the rings or the zoom's grouping. */
  private dirty = true;
  private clusterZoom = Number.NaN;

  // What was packed and drawn last, for hit-testing and `drawn()`.
  private words = new ArrayBuffer(1024 * instanceWords * 4);
  private floats = new Float32Array(this.words);
  private uints = new Uint32Array(this.words);
  private drawnXs = new Float64Array(0);
  private drawnYs = new Float64Array(0);
  private drawnStatuses = new Uint8Array(0);
  private drawnIds: string[] = [];
  /** The slots drawn on their own, in draw order (reused between packs). */
  private order = new Int32Array(0);
  /** Where the grouping keeps its grid and each slot's group between packs. */
  private readonly clusterWork = new ClusterWorkspace();
  private drawnClusters: Cluster[] = [];
  /** The area whose vehicles and groups were packed; an empty one until the first pack. */
  private packedRect: MercatorRect = { minX: 0, minY: 0, maxX: -1, maxY: -1 };
  private matrix = new Float64Array(16);
  private zoom = 0;
  private widthPx = 0;
  private heightPx = 0;

  private readonly canvas: HTMLCanvasElement;
  private readonly context: WebGL2RenderingContext;
  private gl: VehicleGl | null = null;
  private drawPending = false;
  private cursorSet = false;
  private hoverPending = false;

  constructor(
    private readonly map: MapLibreMap,
    private readonly store: FleetStore,
  ) {
    this.canvas = document.createElement('canvas');
    this.canvas.className = vehicleCanvasClass;
    this.canvas.setAttribute('aria-hidden', 'true');
    // Right above the map's canvas: MapLibre's markers and popups, added later, stay on top.
    map.getCanvas().after(this.canvas);
    const context = this.canvas.getContext('webgl2', { alpha: true, premultipliedAlpha: true, antialias: false });
    if (!context) throw new Error('the vehicle layer needs WebGL 2');
    this.context = context;
    this.reload();
    store.subscribe((changed) => {
      if (changed === null) this.reload();
      else for (const id of changed) this.patch(id);
      this.changed();
    });
    // A frame MapLibre draws has moved the camera or the base map: draw the fleet with it, in the same frame.
    map.on('render', () => this.draw());
    map.on('mousemove', (event) => {
      if (this.hoverPending) return;
      this.hoverPending = true;
      requestAnimationFrame(() => {
        this.hoverPending = false;
        const over = this.clusterAt(event.point) !== null || this.vehicleAt(event.point) !== null;
        if (over === this.cursorSet) return;
        this.cursorSet = over;
        map.getCanvas().style.cursor = over ? 'pointer' : '';
      });
    });
  }

  /** The vehicle drawn nearest `point` (CSS pixels on the map) within its marker plus `tolerancePx`. */
  vehicleAt(point: { x: number; y: number }, tolerancePx = 5): string | null {
    const scale = zoomScale(this.zoom);
    let best: string | null = null;
    let bestDistance = Number.POSITIVE_INFINITY;
    for (let i = 0; i < this.drawnIds.length; i++) {
      const screen = this.toScreen(this.drawnXs[i] ?? 0, this.drawnYs[i] ?? 0);
      if (!screen) continue;
      const distance = Math.hypot(screen.x - point.x, screen.y - point.y);
      const reach = (statusRadius[this.drawnStatuses[i] ?? 0] ?? 5) * scale + tolerancePx;
      if (distance <= reach && distance < bestDistance) {
        bestDistance = distance;
        best = this.drawnIds[i] ?? null;
      }
    }
    return best;
  }

  /** A click on a group zooms in until it comes apart; true when there was one under `point`. */
  handleClusterClick(point: PointLike): boolean {
    const cluster = this.clusterAt(pointOf(point));
    if (!cluster) return false;
    const zoom = expansionZoom(cluster, this.xs, this.ys, this.count);
    const centre = new MercatorCoordinate(cluster.x, cluster.y).toLngLat();
    this.map.easeTo({ center: centre, zoom });
    return true;
  }

  /** Rings the chosen vehicle so it can be followed while it moves; null clears the ring. */
  select(vehicleId: string | null): void {
    this.selected = vehicleId;
    this.changed();
  }

  /** Rings every vehicle with an open violation. */
  setMarked(vehicleIds: Iterable<string>): void {
    const next = new Set(vehicleIds);
    if (next.size === this.marked.size && [...next].every((id) => this.marked.has(id))) return;
    this.marked = next;
    this.changed();
  }

  /**
   * Fades the fleet while a violation's evidence is on the map, so its trace and samples are not
   * confused with live markers; the markers stay visible to keep the live context.
   */
  setDimmed(dimmed: boolean): void {
    this.dimmed = dimmed;
    this.changed();
  }

  /** The vehicles and groups of the last frame drawn, in geographic coordinates. */
  drawn(): { vehicles: DrawnVehicle[]; clusters: DrawnCluster[] } {
    const vehicles = this.drawnIds.map((id, i) => {
      const { lng, lat } = new MercatorCoordinate(this.drawnXs[i] ?? 0, this.drawnYs[i] ?? 0).toLngLat();
      return { id, lon: lng, lat, status: vehicleStatuses[this.drawnStatuses[i] ?? 0] ?? 'offline' };
    });
    const clusters = this.drawnClusters.map((cluster) => {
      const { lng, lat } = new MercatorCoordinate(cluster.x, cluster.y).toLngLat();
      return { lon: lng, lat, count: cluster.count };
    });
    return { vehicles, clusters };
  }

  /** Something drawn changed: redraw on the next animation frame (once, however many changes). */
  private changed(): void {
    this.dirty = true;
    if (this.drawPending) return;
    this.drawPending = true;
    requestAnimationFrame(() => {
      if (this.drawPending) this.draw();
    });
  }

  private draw(): void {
    this.drawPending = false;
    // The map canvas's drawing size over the pixel ratio: reading its CSS size would force a layout.
    const mapCanvas = this.map.getCanvas();
    const pixelRatio = this.map.getPixelRatio();
    if (this.canvas.width !== mapCanvas.width || this.canvas.height !== mapCanvas.height) {
      this.canvas.width = mapCanvas.width;
      this.canvas.height = mapCanvas.height;
      this.canvas.style.width = mapCanvas.style.width;
      this.canvas.style.height = mapCanvas.style.height;
    }
    const context = this.context;
    this.gl ??= new VehicleGl(context, pixelRatio);
    this.zoom = this.map.getZoom();
    this.widthPx = mapCanvas.width / pixelRatio;
    this.heightPx = mapCanvas.height / pixelRatio;
    this.matrix.set(this.map.transform.getProjectionDataForCustomLayer(false).mainMatrix);
    const clusterZoom = Math.floor(this.zoom) <= clusterOptions.maxZoom ? Math.floor(this.zoom) : Number.NaN;
    if (!Object.is(clusterZoom, this.clusterZoom)) {
      this.clusterZoom = clusterZoom;
      this.dirty = true;
    }
    // Only what is near the view is packed: a camera move that brings the view (and what can
    // show at its edge) past that area packs again, as a change does.
    if (!this.dirty && !within(this.viewRect(0, visibleReachPx), this.packedRect)) this.dirty = true;
    if (this.dirty) {
      this.dirty = false;
      // Packing may replace the buffer with a larger one: count first, then hand it over.
      const count = this.pack(this.viewRect(packMargin, packSlackPx));
      this.gl.upload(this.words, count);
    }
    const centre = MercatorCoordinate.fromLngLat(this.map.getCenter());
    context.viewport(0, 0, mapCanvas.width, mapCanvas.height);
    context.clearColor(0, 0, 0, 0);
    context.clear(context.COLOR_BUFFER_BIT);
    this.gl.draw({
      matrix: this.matrix,
      centreX: centre.x,
      centreY: centre.y,
      widthPx: this.widthPx,
      heightPx: this.heightPx,
      zoomScale: zoomScale(this.zoom),
      strokeScale: strokeScale(this.zoom),
    });
  }

  /** Every placed vehicle again (a new listing: sign-in, reconnection). */
  private reload(): void {
    this.count = 0;
    this.ids = [];
    this.slotOf.clear();
    for (const vehicle of this.store.all()) this.patch(vehicle.id);
  }

  /** Brings one vehicle's slot in line with the store: placed, moved, restyled or removed. */
  private patch(id: string): void {
    const vehicle = this.store.get(id);
    let slot = this.slotOf.get(id);
    if (!vehicle?.position) {
      if (slot === undefined) return;
      // Swap-remove: the last slot takes the freed one.
      const last = this.count - 1;
      const lastId = this.ids[last] ?? '';
      this.xs[slot] = this.xs[last] ?? 0;
      this.ys[slot] = this.ys[last] ?? 0;
      this.statuses[slot] = this.statuses[last] ?? 0;
      this.ids[slot] = lastId;
      this.slotOf.set(lastId, slot);
      this.slotOf.delete(id);
      this.ids.length = last;
      this.count = last;
      return;
    }
    if (slot === undefined) {
      slot = this.count++;
      if (slot >= this.xs.length) this.grow();
      this.slotOf.set(id, slot);
      this.ids[slot] = id;
    }
    const { lon, lat } = vehicle.position;
    this.xs[slot] = (lon + 180) / 360;
    this.ys[slot] = mercatorY(lat);
    this.statuses[slot] = statusIndex[vehicle.status];
  }

  private grow(): void {
    const size = this.xs.length * 2;
    const xs = new Float64Array(size);
    const ys = new Float64Array(size);
    const statuses = new Uint8Array(size);
    xs.set(this.xs);
    ys.set(this.ys);
    statuses.set(this.statuses);
    this.xs = xs;
    this.ys = ys;
    this.statuses = statuses;
  }

  /**
   * The view in Web Mercator, grown by `fraction` of its size and `px` CSS pixels on each side.
   * The map neither tilts nor rotates (map-view.ts), so its bounds are the view.
   */
  private viewRect(fraction: number, px: number): MercatorRect {
    const bounds = this.map.getBounds();
    const minX = (bounds.getWest() + 180) / 360;
    const maxX = (bounds.getEast() + 180) / 360;
    const minY = mercatorY(bounds.getNorth());
    const maxY = mercatorY(bounds.getSouth());
    const growX = (maxX - minX) * fraction + ((maxX - minX) / Math.max(1, this.widthPx)) * px;
    const growY = (maxY - minY) * fraction + ((maxY - minY) / Math.max(1, this.heightPx)) * px;
    return { minX: minX - growX, minY: minY - growY, maxX: maxX + growX, maxY: maxY + growY };
  }

  /**
   * Writes the instances in draw order into `words`; returns how many. Only the vehicles and
   * groups inside `rect` are written: at street zoom the view holds a twentieth of a state's fleet,
   * and packing, uploading and drawing all of it was most of a redraw. Groups are still made from
   * the whole fleet, so a group at the edge counts the vehicles beyond it.
   */
  private pack(rect: MercatorRect): number {
    const n = this.count;
    this.packedRect = rect;
    const { minX, minY, maxX, maxY } = rect;
    const { xs, ys } = this;
    // Past the grouping zoom `clusterVehicles` only marks every slot as drawn on its own.
    const zoom = Number.isNaN(this.clusterZoom) ? clusterOptions.maxZoom + 1 : this.clusterZoom;
    const grouped = clusterVehicles(xs, ys, n, zoom, clusterOptions, this.clusterWork);
    // Per slot: its group, -1 drawn on its own, and (below) -2 outside the area, not packed.
    const clusterOf = grouped.clusterOf;
    const clusters = grouped.clusters.filter(
      (cluster) => cluster.x >= minX && cluster.x <= maxX && cluster.y >= minY && cluster.y <= maxY,
    );
    // Markers by status (later statuses on top): a counting sort of the slots drawn on their own.
    // A slot outside the area is marked -2 in `clusterOf` (not packed) on the way.
    const perStatus = new Int32Array(vehicleStatuses.length + 1);
    let single = 0;
    for (let i = 0; i < n; i++) {
      if ((clusterOf[i] ?? -1) >= 0) continue;
      const x = xs[i] ?? 0;
      const y = ys[i] ?? 0;
      if (x < minX || x > maxX || y < minY || y > maxY) {
        clusterOf[i] = -2;
        continue;
      }
      const s = this.statuses[i] ?? 0;
      perStatus[s + 1] = (perStatus[s + 1] ?? 0) + 1;
      single++;
    }
    for (let s = 1; s < perStatus.length; s++) perStatus[s] = (perStatus[s] ?? 0) + (perStatus[s - 1] ?? 0);
    if (this.order.length < single) this.order = new Int32Array(this.xs.length);
    const { order } = this;
    for (let i = 0; i < n; i++) {
      if ((clusterOf[i] ?? -1) !== -1) continue;
      const s = this.statuses[i] ?? 0;
      const at = perStatus[s] ?? 0;
      order[at] = i;
      perStatus[s] = at + 1;
    }

    const selectedSlot = this.selected === null ? undefined : this.slotOf.get(this.selected);
    const selected = selectedSlot !== undefined && (clusterOf[selectedSlot] ?? -1) === -1 ? selectedSlot : -1;
    const markedSlots: number[] = [];
    for (const id of this.marked) {
      const slot = this.slotOf.get(id);
      if (slot !== undefined && (clusterOf[slot] ?? -1) === -1) markedSlots.push(slot);
    }
    const digits = clusters.reduce((sum, cluster) => sum + String(cluster.count).length, 0);
    const total = (selected >= 0 ? 1 : 0) + clusters.length + single + markedSlots.length + digits;
    if (this.words.byteLength < total * instanceWords * 4)
      this.words = new ArrayBuffer(
        Math.max(total, 2 * (this.words.byteLength / (instanceWords * 4))) * instanceWords * 4,
      );
    if (this.floats.buffer !== this.words) {
      this.floats = new Float32Array(this.words);
      this.uints = new Uint32Array(this.words);
    }
    const { floats, uints } = this;
    let k = 0;
    const put = (
      x: number,
      y: number,
      radius: number,
      stroke: number,
      kind: number,
      offsetX: number,
      digit: number,
      fill: number,
      strokeColour: number,
    ) => {
      const o = k * instanceWords;
      const hx = Math.fround(x);
      const hy = Math.fround(y);
      floats[o] = hx;
      floats[o + 1] = hy;
      floats[o + 2] = x - hx;
      floats[o + 3] = y - hy;
      floats[o + 4] = radius;
      floats[o + 5] = stroke;
      floats[o + 6] = kind;
      floats[o + 7] = offsetX;
      floats[o + 8] = digit;
      uints[o + 9] = fill;
      uints[o + 10] = strokeColour;
      k++;
    };
    const scaled = shapeKind.scaledCircle;

    if (selected >= 0) {
      const s = this.statuses[selected] ?? 0;
      const colour = statusStyles[vehicleStatuses[s] ?? 'offline'].color;
      put(
        this.xs[selected] ?? 0,
        this.ys[selected] ?? 0,
        (statusRadius[s] ?? 5) * selectionRing,
        2,
        scaled,
        0,
        0,
        packColour(colour, 0.25),
        packColour(colour),
      );
    }
    for (const cluster of clusters)
      put(cluster.x, cluster.y, clusterRadius(cluster.count), 1.5, shapeKind.fixedCircle, 0, 0, clusterColour, white);

    if (this.drawnXs.length < single) {
      this.drawnXs = new Float64Array(this.xs.length);
      this.drawnYs = new Float64Array(this.xs.length);
      this.drawnStatuses = new Uint8Array(this.xs.length);
    }
    this.drawnIds.length = single;
    for (let j = 0; j < single; j++) {
      const i = order[j] ?? 0;
      const s = this.statuses[i] ?? 0;
      const x = this.xs[i] ?? 0;
      const y = this.ys[i] ?? 0;
      this.drawnXs[j] = x;
      this.drawnYs[j] = y;
      this.drawnStatuses[j] = s;
      this.drawnIds[j] = this.ids[i] ?? '';
      const fill = (this.dimmed ? statusDimmedColour[s] : statusColour[s]) ?? 0;
      put(x, y, statusRadius[s] ?? 5, 1.5, scaled, 0, 0, fill, this.dimmed ? statusStrokeDimmed : white);
    }
    const ring = packColour(violationColors.mark);
    const ringFill = packColour(violationColors.mark, 0.12);
    for (const slot of markedSlots) {
      const s = this.statuses[slot] ?? 0;
      put(
        this.xs[slot] ?? 0,
        this.ys[slot] ?? 0,
        (statusRadius[s] ?? 5) * violationRing,
        3,
        scaled,
        0,
        0,
        ringFill,
        ring,
      );
    }
    for (const cluster of clusters) {
      const text = String(cluster.count);
      for (let d = 0; d < text.length; d++) {
        const offset = (d - (text.length - 1) / 2) * digitAdvancePx;
        put(cluster.x, cluster.y, digitHalfHeightPx, 0, shapeKind.digit, offset, Number(text[d]), white, 0);
      }
    }
    this.drawnClusters = clusters;
    return k;
  }

  private clusterAt(point: { x: number; y: number }): Cluster | null {
    for (const cluster of this.drawnClusters) {
      const screen = this.toScreen(cluster.x, cluster.y);
      if (screen && Math.hypot(screen.x - point.x, screen.y - point.y) <= clusterRadius(cluster.count) + 2)
        return cluster;
    }
    return null;
  }

  /** Where a Mercator position was drawn on the last frame, in CSS pixels; null behind the camera. */
  private toScreen(x: number, y: number): { x: number; y: number } | null {
    const m = this.matrix;
    const cx = (m[0] ?? 0) * x + (m[4] ?? 0) * y + (m[12] ?? 0);
    const cy = (m[1] ?? 0) * x + (m[5] ?? 0) * y + (m[13] ?? 0);
    const cw = (m[3] ?? 0) * x + (m[7] ?? 0) * y + (m[15] ?? 0);
    if (cw <= 0) return null;
    return { x: ((cx / cw + 1) / 2) * this.widthPx, y: ((1 - cy / cw) / 2) * this.heightPx };
  }
}

/** Whether `inner` lies inside `outer`. */
function within(inner: MercatorRect, outer: MercatorRect): boolean {
  return inner.minX >= outer.minX && inner.maxX <= outer.maxX && inner.minY >= outer.minY && inner.maxY <= outer.maxY;
}

function mercatorY(lat: number): number {
  const sin = Math.sin((lat * Math.PI) / 180);
  return 0.5 - (0.25 * Math.log((1 + sin) / (1 - sin))) / Math.PI;
}

function pointOf(point: PointLike): { x: number; y: number } {
  return Array.isArray(point) ? { x: point[0], y: point[1] } : point;
}
