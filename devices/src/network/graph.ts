import { distanceM, type LatLon } from '../geo.js';
import { ROAD_CLASS_PROFILES } from './road-classes.js';
import { RoutePath } from './route-path.js';
import type { CityDef, Coord, PlaceDef, RoadClass, RoadDef } from './types.js';

/** Longest straight piece between two vertices after densification, metres. */
export const MAX_VERTEX_SPACING_M = 120;
/** A place further than this from every road is a data error. */
export const MAX_PLACE_SNAP_M = 150;

export interface GraphNode extends LatLon {
  id: number;
  /** The junction name, when roads meet here. */
  junction?: string;
}

export interface GraphEdge {
  from: number;
  to: number;
  lengthM: number;
  roadId: string;
  roadClass: RoadClass;
  /** Free-flow travel time, the routing weight. */
  seconds: number;
}

export interface SnappedPlace extends PlaceDef {
  node: number;
  /** Distance from the declared position to the road, metres. */
  snapM: number;
}

/** A road as drawn on the map after densification (what "on the road" is checked against). */
export interface RoadPolyline {
  road: RoadDef;
  points: readonly LatLon[];
}

/**
 * The routing graph of one city: every densified vertex is a node, consecutive vertices of a road
 * are joined by edges (both ways unless the road is one-way), and roads that name the same
 * junction share its node. Small enough (a few thousand nodes) for a plain Dijkstra per trip.
 */
export class RoadGraph {
  readonly nodes: GraphNode[] = [];
  readonly outEdges: GraphEdge[][] = [];
  readonly polylines: RoadPolyline[] = [];
  readonly places = new Map<string, SnappedPlace>();
  private readonly junctionNodes = new Map<string, number>();
  /** Nodes where three or more road directions meet (lights and give-way happen here). */
  private readonly crossing: boolean[] = [];

  private constructor(readonly city: CityDef) {}

  static build(city: CityDef): RoadGraph {
    const graph = new RoadGraph(city);
    for (const road of city.roads) graph.addRoad(road);
    graph.markCrossings();
    for (const place of city.places) graph.snapPlace(place);
    return graph;
  }

  place(id: string): SnappedPlace {
    const p = this.places.get(id);
    if (!p) throw new Error(`No place '${id}' in ${this.city.name}`);
    return p;
  }

  placesOfKind(...kinds: PlaceDef['kind'][]): SnappedPlace[] {
    return [...this.places.values()].filter((p) => kinds.includes(p.kind));
  }

  node(id: number): GraphNode {
    const n = this.nodes[id];
    if (!n) throw new Error(`No node ${id}`);
    return n;
  }

  nearestNode(p: LatLon): { node: number; distanceM: number } {
    let best = -1;
    let bestD = Number.POSITIVE_INFINITY;
    for (const n of this.nodes) {
      const d = distanceM(p, n);
      if (d < bestD) {
        bestD = d;
        best = n.id;
      }
    }
    return { node: best, distanceM: bestD };
  }

  /**
   * Fastest path by free-flow time (Dijkstra with a binary heap), or undefined when `to` cannot
   * be reached from `from`.
   */
  route(from: number, to: number): RoutePath | undefined {
    if (from === to) return undefined;
    const n = this.nodes.length;
    const dist = new Float64Array(n).fill(Number.POSITIVE_INFINITY);
    const via: (GraphEdge | undefined)[] = new Array(n);
    const heap = new MinHeap();
    dist[from] = 0;
    heap.push(from, 0);
    while (heap.size > 0) {
      const [u, du] = heap.pop();
      if (du > (dist[u] as number)) continue;
      if (u === to) break;
      for (const e of this.outEdges[u] ?? []) {
        const alt = du + e.seconds;
        if (alt < (dist[e.to] as number)) {
          dist[e.to] = alt;
          via[e.to] = e;
          heap.push(e.to, alt);
        }
      }
    }
    if (!Number.isFinite(dist[to])) return undefined;
    const edges: GraphEdge[] = [];
    for (let at = to; at !== from; ) {
      const e = via[at];
      if (!e) return undefined;
      edges.push(e);
      at = e.from;
    }
    edges.reverse();
    const points: LatLon[] = [this.pointOf(from)];
    const junction: boolean[] = [this.crossing[from] === true];
    const nodeIds = [from];
    for (const e of edges) {
      points.push(this.pointOf(e.to));
      junction.push(this.crossing[e.to] === true);
      nodeIds.push(e.to);
    }
    return new RoutePath(
      points,
      edges.map((e) => e.roadClass),
      edges.map((e) => e.roadId),
      junction,
      nodeIds,
    );
  }

  routeBetweenPlaces(fromId: string, toId: string): RoutePath | undefined {
    return this.route(this.place(fromId).node, this.place(toId).node);
  }

  private pointOf(id: number): LatLon {
    const n = this.node(id);
    return { lat: n.lat, lon: n.lon };
  }

  private resolve(point: RoadPoint, road: RoadDef): { coord: Coord; junction?: string } {
    if (typeof point !== 'string') return { coord: point };
    const coord = this.city.junctions[point];
    if (!coord) throw new Error(`Road '${road.id}' names unknown junction '${point}'`);
    return { coord, junction: point };
  }

  private nodeFor(coord: Coord, junction: string | undefined): number {
    if (junction !== undefined) {
      const existing = this.junctionNodes.get(junction);
      if (existing !== undefined) return existing;
    }
    const id = this.nodes.length;
    this.nodes.push(
      junction === undefined ? { id, lat: coord[0], lon: coord[1] } : { id, lat: coord[0], lon: coord[1], junction },
    );
    this.outEdges.push([]);
    if (junction !== undefined) this.junctionNodes.set(junction, id);
    return id;
  }

  private addRoad(road: RoadDef): void {
    if (road.points.length < 2) throw new Error(`Road '${road.id}' needs two points`);
    const speedMs = (ROAD_CLASS_PROFILES[road.roadClass].cruiseKmh[1] / 3.6) * 0.9;
    const drawn: LatLon[] = [];
    let prevNode: number | undefined;
    let prev: Coord | undefined;
    for (const raw of road.points) {
      const { coord, junction } = this.resolve(raw, road);
      if (prev !== undefined && prevNode !== undefined) {
        // Densify: intermediate vertices every ≤ MAX_VERTEX_SPACING_M along the straight piece.
        const length = distanceM({ lat: prev[0], lon: prev[1] }, { lat: coord[0], lon: coord[1] });
        const pieces = Math.max(1, Math.ceil(length / MAX_VERTEX_SPACING_M));
        for (let k = 1; k <= pieces; k++) {
          const f = k / pieces;
          const c: Coord =
            k === pieces ? coord : [prev[0] + (coord[0] - prev[0]) * f, prev[1] + (coord[1] - prev[1]) * f];
          const node = this.nodeFor(c, k === pieces ? junction : undefined);
          this.link(prevNode, node, road, speedMs);
          drawn.push({ lat: c[0], lon: c[1] });
          prevNode = node;
        }
      } else {
        prevNode = this.nodeFor(coord, junction);
        drawn.push({ lat: coord[0], lon: coord[1] });
      }
      prev = coord;
    }
    this.polylines.push({ road, points: drawn });
  }

  private link(a: number, b: number, road: RoadDef, speedMs: number): void {
    if (a === b) return;
    const lengthM = distanceM(this.node(a), this.node(b));
    const edge = (from: number, to: number): GraphEdge => ({
      from,
      to,
      lengthM,
      roadId: road.id,
      roadClass: road.roadClass,
      seconds: lengthM / speedMs,
    });
    this.outEdges[a]?.push(edge(a, b));
    if (!road.oneway) this.outEdges[b]?.push(edge(b, a));
  }

  private markCrossings(): void {
    const neighbours = this.nodes.map(() => new Set<number>());
    this.outEdges.forEach((edges, from) => {
      for (const e of edges) {
        neighbours[from]?.add(e.to);
        neighbours[e.to]?.add(from);
      }
    });
    for (const n of this.nodes) this.crossing[n.id] = (neighbours[n.id]?.size ?? 0) >= 3;
  }

  private snapPlace(place: PlaceDef): void {
    if (this.places.has(place.id)) throw new Error(`Duplicate place id '${place.id}'`);
    const { node, distanceM: d } = this.nearestNode({ lat: place.at[0], lon: place.at[1] });
    if (d > MAX_PLACE_SNAP_M) {
      throw new Error(`Place '${place.id}' is ${Math.round(d)} m from the nearest road of ${this.city.name}`);
    }
    this.places.set(place.id, { ...place, node, snapM: d });
  }
}

type RoadPoint = RoadDef['points'][number];

/** A binary min-heap of (node, priority). */
class MinHeap {
  private readonly ids: number[] = [];
  private readonly keys: number[] = [];

  get size(): number {
    return this.ids.length;
  }

  push(id: number, key: number): void {
    this.ids.push(id);
    this.keys.push(key);
    let i = this.ids.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if ((this.keys[parent] as number) <= key) break;
      this.swap(i, parent);
      i = parent;
    }
  }

  pop(): [number, number] {
    const top: [number, number] = [this.ids[0] as number, this.keys[0] as number];
    const lastId = this.ids.pop() as number;
    const lastKey = this.keys.pop() as number;
    if (this.ids.length > 0) {
      this.ids[0] = lastId;
      this.keys[0] = lastKey;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < this.ids.length && (this.keys[l] as number) < (this.keys[m] as number)) m = l;
        if (r < this.ids.length && (this.keys[r] as number) < (this.keys[m] as number)) m = r;
        if (m === i) break;
        this.swap(i, m);
        i = m;
      }
    }
    return top;
  }

  private swap(a: number, b: number): void {
    [this.ids[a], this.ids[b]] = [this.ids[b] as number, this.ids[a] as number];
    [this.keys[a], this.keys[b]] = [this.keys[b] as number, this.keys[a] as number];
  }
}
