import type { RoadGraph, SnappedPlace } from '../network/graph.js';
import type { RoutePath } from '../network/route-path.js';
import type { CharterLineDef } from '../network/types.js';

export type Direction = 'morning' | 'evening';

/** A charter line resolved on the graph: its places and the routed legs between them. */
export interface CharterLine {
  def: CharterLineDef;
  /** Places in the order the bus calls at them, per direction. */
  places: Readonly<Record<Direction, readonly SnappedPlace[]>>;
  /** legs[d][i] runs from places[d][i] to places[d][i + 1]. */
  legs: Readonly<Record<Direction, readonly RoutePath[]>>;
  /** How many of the first places of each direction are boarding places. */
  boardingPlaces: Readonly<Record<Direction, number>>;
}

export function resolveCharterLine(graph: RoadGraph, def: CharterLineDef): CharterLine {
  const morning = def.placeIds.map((id) => graph.place(id));
  const evening = [...morning].reverse();
  const legsFor = (places: readonly SnappedPlace[]): RoutePath[] =>
    places.slice(1).map((to, i) => {
      const from = places[i] as SnappedPlace;
      const path = graph.route(from.node, to.node);
      if (!path) throw new Error(`Charter line ${def.id}: no route from ${from.id} to ${to.id}`);
      return path;
    });
  return {
    def,
    places: { morning, evening },
    legs: { morning: legsFor(morning), evening: legsFor(evening) },
    boardingPlaces: { morning: def.suburbPlaces, evening: def.placeIds.length - def.suburbPlaces },
  };
}

/** The whole declared itinerary of a direction as one polyline (what a regulator registers). */
export function itineraryPolyline(line: CharterLine, direction: Direction): { lat: number; lon: number }[] {
  const points: { lat: number; lon: number }[] = [];
  for (const leg of line.legs[direction]) {
    for (const p of leg.points) {
      const last = points[points.length - 1];
      if (!last || last.lat !== p.lat || last.lon !== p.lon) points.push({ lat: p.lat, lon: p.lon });
    }
  }
  return points;
}
