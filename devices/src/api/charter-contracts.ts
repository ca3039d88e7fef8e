import type { Roster } from '../fleet/roster.js';
import { CITIES, cityGraph } from '../network/cities.js';
import { itineraryPolyline, resolveCharterLine } from '../vehicles/charter-line.js';

/** Radius of a charter line's declared boarding / alighting place (a *bolsão* of a few bays). */
const PLACE_RADIUS_M = 80;

/** A contract as `POST /v1/contracts` takes it. */
export interface ContractBody {
  id: string;
  operatorId: string;
  kind: 'fretamento-continuo';
  client: string;
  vehicleIds: string[];
  route: { type: 'LineString'; coordinates: [number, number][] };
  boardingPlaces: { id: string; name: string; lat: number; lon: number; radiusM: number }[];
  alightingPlaces: { id: string; name: string; lat: number; lon: number; radiusM: number }[];
  schedule: { daysOfWeek: number[]; start: string; end: string }[];
  validFrom: string;
}

/**
 * The written contracts behind the simulated charter buses (SP Art. 10: *fretamento contínuo*
 * "mediante contrato escrito"), one per charter line and operator: the line's morning itinerary
 * (the evening trip runs it backwards), every place of the line declared for boarding and
 * alighting, the operator's buses on it, and a schedule of every day, all day — the simulator
 * compresses the morning and evening trips into a loop that runs at any hour. Without them every
 * honest bus carrying passengers would run with no contract in force (FRET_NO_CONTRACT_IN_FORCE).
 */
export function charterContractBodies(roster: Roster, validFrom: string): ContractBody[] {
  const lines = CITIES['sp-fretamento'].charterLines ?? [];
  if (lines.length === 0) return [];
  const graph = cityGraph('sp-fretamento');
  const contracts: ContractBody[] = [];
  for (const def of lines) {
    const byOperator = new Map<string, string[]>();
    for (const e of roster.entries) {
      if (e.charterLineId !== def.id) continue;
      byOperator.set(e.vehicle.operatorId, [...(byOperator.get(e.vehicle.operatorId) ?? []), e.vehicle.id]);
    }
    if (byOperator.size === 0) continue;
    const line = resolveCharterLine(graph, def);
    const route = itineraryPolyline(line, 'morning').map((p) => [p.lon, p.lat] as [number, number]);
    const places = line.places.morning.map((p) => {
      const at = graph.node(p.node);
      return { id: p.id, name: p.name, lat: at.lat, lon: at.lon, radiusM: PLACE_RADIUS_M };
    });
    for (const [operatorId, vehicleIds] of byOperator) {
      contracts.push({
        id: `sim-contract-${def.id}-${operatorId}`,
        operatorId,
        kind: 'fretamento-continuo',
        client: def.name,
        vehicleIds,
        route: { type: 'LineString', coordinates: route },
        boardingPlaces: places,
        alightingPlaces: places,
        schedule: [{ daysOfWeek: [1, 2, 3, 4, 5, 6, 7], start: '00:00', end: '24:00' }],
        validFrom,
      });
    }
  }
  return contracts;
}
