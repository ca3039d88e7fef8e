import { distanceM, type LatLon } from '../geo.js';
import type { RoadGraph } from '../network/graph.js';
import type { Random } from '../random.js';
import { bookedTripDestination, type TaxiWorld } from '../vehicles/taxi-behaviour.js';
import type { Place } from './dispatch-api.js';

/**
 * Where the simulated radio desks' callers are: on the road network the taxis drive (so the taxi
 * that takes the booking stops within a few metres of the pickup), at a named place (a hotel, a
 * shopping centre, the airport), around the corner from a stand, or in a street where taxis are.
 */

/** A pickup keeps this far from every stand: boarding there is the queue's business (DF Art. 37 m). */
export const STAND_CLEARANCE_M = 80;
/** "Near a stand": within this distance of one (the booking service offers it to the stand's queue first). */
const NEAR_STAND_M = 250;
/** A caller in a street where a free taxi is: this far from it, straight line. */
export const NEAR_TAXI_M: readonly [number, number] = [200, 1000];

export interface PickupPoint {
  place: Place;
  /** The road vertex it is at. */
  node: number;
}

/**
 * A pickup: near `taxi` (a free taxi of the desk's cooperative, `nearTaxiM` from it) a share
 * `nearTaxi` of the time when given (half by default), else at a named place, near a stand, or anywhere on the network.
 */
export function choosePickup(
  world: TaxiWorld,
  rng: Random,
  taxi?: LatLon,
  nearTaxi = 0.5,
  nearTaxiM: readonly [number, number] = NEAR_TAXI_M,
): PickupPoint {
  const graph = world.graph;
  const standNodes = world.stands.map((s) => graph.node(s.place.node));
  const clear = (p: LatLon) => standNodes.every((s) => distanceM(p, s) >= STAND_CLEARANCE_M);
  const roll = rng.next();
  if (taxi && roll < nearTaxi) {
    const nodes = graph.nodes.filter((n) => {
      const d = distanceM(n, taxi);
      return d >= nearTaxiM[0] && d <= nearTaxiM[1] && clear(n);
    });
    if (nodes.length > 0) return atNode(graph, rng.pick(nodes).id);
  }
  if (roll < 0.75) {
    const places = [...graph.places.values()].filter((p) => p.kind !== 'stand' && clear(graph.node(p.node)));
    if (places.length > 0) {
      const p = rng.weighted(places, (c) => c.weight ?? 1);
      const at = graph.node(p.node);
      return { place: { lat: at.lat, lon: at.lon, address: p.name }, node: p.node };
    }
  }
  if (roll < 0.9 && world.stands.length > 0) {
    const stand = rng.pick(world.stands);
    const s = graph.node(stand.place.node);
    const nodes = graph.nodes.filter((n) => distanceM(n, s) <= NEAR_STAND_M && clear(n));
    if (nodes.length > 0) {
      const node = rng.pick(nodes).id;
      const at = graph.node(node);
      return {
        place: { lat: at.lat, lon: at.lon, address: `${roadName(graph, node)}, perto de ${stand.place.name}` },
        node,
      };
    }
  }
  const nodes = graph.nodes.filter(clear);
  return atNode(graph, rng.pick(nodes.length > 0 ? nodes : graph.nodes).id);
}

/**
 * A caller a short drive from `taxi`: a street vertex `nearTaxiM` from it, straight line, clear of
 * the stands, that the taxi reaches by at most `maxRouteM` of road (not one across a dual
 * carriageway, a U-turn away), and each of `backups` by at most `backupRouteM`. Undefined when no
 * vertex qualifies among a sample of them.
 */
export function pickupShortDriveFrom(
  world: TaxiWorld,
  rng: Random,
  taxi: LatLon,
  nearTaxiM: readonly [number, number],
  maxRouteM: number,
  backups: readonly LatLon[] = [],
  backupRouteM = maxRouteM,
): PickupPoint | undefined {
  const graph = world.graph;
  const standNodes = world.stands.map((s) => graph.node(s.place.node));
  const from = graph.nearestNode(taxi).node;
  const backupNodes = backups.map((b) => graph.nearestNode(b).node);
  const within = (start: number, to: number, limitM: number) =>
    start === to || (graph.route(start, to)?.lengthM ?? Number.POSITIVE_INFINITY) <= limitM;
  const nodes = graph.nodes.filter((n) => {
    const d = distanceM(n, taxi);
    return d >= nearTaxiM[0] && d <= nearTaxiM[1] && standNodes.every((s) => distanceM(n, s) >= STAND_CLEARANCE_M);
  });
  // A few Dijkstra runs on a city network: cheap, and only for a city's first call.
  for (let tries = 0; tries < 30 && nodes.length > 0; tries++) {
    const [node] = nodes.splice(rng.int(0, nodes.length - 1), 1);
    if (!node) break;
    if (within(from, node.id, maxRouteM) && backupNodes.every((b) => within(b, node.id, backupRouteM)))
      return atNode(graph, node.id);
  }
  return undefined;
}

/**
 * Where the caller goes (a named place a lawful trip away, see `bookedTripDestination`), or
 * undefined when none is found (the booking then names no destination).
 */
export function chooseDropoff(world: TaxiWorld, rng: Random, fromNode: number): Place | undefined {
  const p = bookedTripDestination(world.graph, fromNode, rng);
  if (!p) return undefined;
  const at = world.graph.node(p.node);
  return { lat: at.lat, lon: at.lon, address: p.name };
}

function atNode(graph: RoadGraph, node: number): PickupPoint {
  const at = graph.node(node);
  return { place: { lat: at.lat, lon: at.lon, address: roadName(graph, node) }, node };
}

/** The name of a road through `node` (the junction's name when it has one). */
function roadName(graph: RoadGraph, node: number): string {
  const n = graph.node(node);
  if (n.junction) return n.junction;
  const roadId = graph.outEdges[node]?.[0]?.roadId;
  return graph.city.roads.find((r) => r.id === roadId)?.name ?? graph.city.name;
}
