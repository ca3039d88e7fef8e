import type { Roster } from '../fleet/roster.js';
import { CITIES, cityGraph } from '../network/cities.js';
import { itineraryPolyline, resolveCharterLine } from '../vehicles/charter-line.js';

/** Radius of a charter line's declared boarding / alighting place (a *bolsão* of a few bays). */
export const CHARTER_PLACE_RADIUS_M = 80;
/**
 * The one-off trip (*fretamento eventual*, SP Art. 11) that is the only contract of a bus with the
 * vice `contractLapsed`: a works outing on the line's itinerary long ago, so nothing is in force now.
 */
const LAPSED_EVENTUAL_TRIP = { date: '2024-03-15', start: '06:00', end: '20:00' } as const;

/** A contract as `POST /v1/contracts` takes it. */
export interface ContractBody {
  id: string;
  operatorId: string;
  kind: 'fretamento-continuo' | 'fretamento-eventual';
  client: string;
  vehicleIds: string[];
  route: { type: 'LineString'; coordinates: [number, number][] };
  boardingPlaces: { id: string; name: string; lat: number; lon: number; radiusM: number }[];
  alightingPlaces: { id: string; name: string; lat: number; lon: number; radiusM: number }[];
  schedule: { daysOfWeek: number[]; dates?: string[]; start: string; end: string }[];
  validFrom: string;
  validUntil?: string;
}

/**
 * The written contracts behind the simulated charter buses (SP Art. 10: *fretamento contínuo*
 * "mediante contrato escrito"), one per charter line and operator: the line's morning itinerary
 * (the evening trip runs it backwards), every place of the line declared for boarding and
 * alighting, the operator's buses on it, and a schedule of every day, all day — the simulator
 * compresses the morning and evening trips into a loop that runs at any hour. Without them every
 * honest bus carrying passengers would run with no contract in force (FRET_NO_CONTRACT_IN_FORCE).
 * A bus with the vice `contractLapsed` is on none of them: its operator's only paper for it is a
 * *fretamento eventual* of one day long past, so it does run without a contract in force.
 */
export function charterContractBodies(roster: Roster, validFrom: string): ContractBody[] {
  const lines = CITIES['sp-fretamento'].charterLines ?? [];
  if (lines.length === 0) return [];
  const graph = cityGraph('sp-fretamento');
  const contracts: ContractBody[] = [];
  for (const def of lines) {
    const byOperator = new Map<string, string[]>();
    for (const e of roster.entries) {
      if (e.charterLineId !== def.id || e.vices?.contractLapsed) continue;
      byOperator.set(e.vehicle.operatorId, [...(byOperator.get(e.vehicle.operatorId) ?? []), e.vehicle.id]);
    }
    const lapsed = roster.entries.filter((e) => e.charterLineId === def.id && e.vices?.contractLapsed);
    if (byOperator.size === 0 && lapsed.length === 0) continue;
    const line = resolveCharterLine(graph, def);
    const route = itineraryPolyline(line, 'morning').map((p) => [p.lon, p.lat] as [number, number]);
    const places = line.places.morning.map((p) => {
      const at = graph.node(p.node);
      return { id: p.id, name: p.name, lat: at.lat, lon: at.lon, radiusM: CHARTER_PLACE_RADIUS_M };
    });
    for (const e of lapsed) {
      const { date, start, end } = LAPSED_EVENTUAL_TRIP;
      contracts.push({
        id: `sim-contract-eventual-${e.vehicle.id}`,
        operatorId: e.vehicle.operatorId,
        kind: 'fretamento-eventual',
        client: `${def.name} (excursão)`,
        vehicleIds: [e.vehicle.id],
        route: { type: 'LineString', coordinates: route },
        boardingPlaces: places,
        alightingPlaces: places,
        schedule: [{ daysOfWeek: [], dates: [date], start, end }],
        validFrom: date < validFrom ? date : validFrom,
        validUntil: date,
      });
    }
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
