import type { Pack } from '@vigia/core';

/**
 * The data a city's road network is written in. Roads are polylines of real major roads, traced
 * from geographic knowledge (and, for Brasília, checked against the positions of SEMOB-DF bus
 * stops along the same roads). A point is either a coordinate or the name of a junction: roads
 * that name the same junction meet there, which is how the routing graph learns where one can
 * turn from one road into another.
 */

/** `[lat, lon]` in WGS 84 degrees. */
export type Coord = readonly [lat: number, lon: number];

/** A coordinate, or the name of a junction declared in the city's `junctions`. */
export type RoadPoint = Coord | string;

export const roadClasses = ['highway', 'expressway', 'arterial', 'central', 'local'] as const;
/**
 * - `highway`: rodovias (Castello Branco, Dutra, Anchieta, DF-047 ...), grade-separated;
 * - `expressway`: urban expressways (Marginais, Eixão, EPIA, EPTG), few or no lights;
 * - `arterial`: main avenues with lights at junctions (W3, L2, Almirante Barroso ...);
 * - `central`: avenues in dense central areas (Paulista, Presidente Vargas): slow, many lights;
 * - `local`: short access roads (car parks, charter bays, airport curbs).
 */
export type RoadClass = (typeof roadClasses)[number];

export interface RoadDef {
  id: string;
  name: string;
  roadClass: RoadClass;
  /** One carriageway of a divided road, drawn in its direction of travel. */
  oneway?: boolean;
  points: readonly RoadPoint[];
}

export const placeKinds = [
  'stand',
  'airport',
  'hotel',
  'shopping',
  'business',
  'government',
  'hospital',
  'station',
  'leisure',
  'residential',
  'industrial',
  'charter-point',
] as const;
export type PlaceKind = (typeof placeKinds)[number];

export interface PlaceDef {
  id: string;
  name: string;
  kind: PlaceKind;
  /** On (or within a few dozen metres of) a road of the network. */
  at: Coord;
  /** Taxi stands: number of places (vagas). */
  standPlaces?: number;
  /** How often trips start or end here, relative to other places (default 1). */
  weight?: number;
}

/**
 * A charter line (fretamento contínuo): the declared itinerary a bus runs, from its first
 * boarding place in the suburbs to its last alighting place in the business district. The
 * evening trip runs it backwards, so every place is where passengers board in one direction and
 * alight in the other.
 */
export interface CharterLineDef {
  id: string;
  name: string;
  /** Place ids in morning order: the suburb's boarding places, then the district's alighting places. */
  placeIds: readonly string[];
  /** How many of the first `placeIds` are in the suburb (boarding in the morning). */
  suburbPlaces: number;
}

export interface CityDef {
  id: string;
  name: string;
  pack: Pack;
  timeZone: string;
  junctions: Readonly<Record<string, Coord>>;
  roads: readonly RoadDef[];
  places: readonly PlaceDef[];
  charterLines?: readonly CharterLineDef[];
  /** Local rush hours [startHour, endHour), when traffic on main roads slows down. */
  rushHours: readonly (readonly [number, number])[];
  /**
   * The speed (km/h) the city's rules read as the limit on every road, where it is below the
   * road classes' speeds: an honest driver keeps a few km/h under it on every road.
   */
  speedLimitKmh?: number;
}
