import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Pack } from '@vigia/core';
import { type PackConfigs, parseGtfsStops, type RegistryRecordsInput } from '@vigia/rules';
import { charterContractBodies } from '../api/charter-contracts.js';
import type { OperatorRecord, Roster } from '../fleet/roster.js';
import { cityGraph } from '../network/cities.js';
import { TARIFF_TABLES } from '../tariff.js';

/**
 * The registry a regulator holds for the simulated fleet, as rule records: the roster exactly as
 * the simulator registers it (operators, drivers, vehicles — the same mapping as the ingest's
 * registry loader), plus what the city's own registers hold about the places the fleet uses —
 * the taxi stands the simulated taxis queue at, each charter line as a contract (route, boarding
 * places, the vehicles on it), and the regular-service bus stops of São Paulo (SPTrans GTFS, when
 * the shared data is present) — and the tariff tables the simulated meters charge. Without them
 * the stand, itinerary, stop and fare rules would have nothing to judge.
 */

type Records = Required<RegistryRecordsInput>;
type RuleOperatorKind = Records['operators'][number]['kind'];

/** Radius of a simulated stand around its curb point: the taxis of its queue stand within it. */
export const STAND_RADIUS_M = 40;
/** Registry records are in force from well before any run. */
const VALID_FROM = '2000-01-01T00:00:00Z';

/** The API's operator kinds as rule records name them (ingest/src/rules/registry-loader.ts). */
const operatorKind = (o: OperatorRecord): RuleOperatorKind => {
  switch (o.kind) {
    case 'company':
      return o.pack === 'sp-fretamento' ? 'charter-company' : 'taxi-company';
    case 'permit-holder':
      return 'taxi-autonomous';
    default:
      return o.kind;
  }
};

/** The roster as the simulator registers it, as rule records (no stands, stops or contracts). */
export function rosterRecords(roster: Roster): Pick<Records, 'operators' | 'drivers' | 'vehicles'> {
  const packOf = new Map(roster.operators.map((o) => [o.id, o.pack]));
  return {
    operators: roster.operators.map((o) => ({
      ...o,
      kind: operatorKind(o),
      status: 'authorized',
      validFrom: VALID_FROM,
    })),
    drivers: roster.entries.flatMap((e) =>
      e.drivers.map((d) => ({ ...d, pack: packOf.get(d.operatorId) as Pack, validFrom: VALID_FROM })),
    ),
    vehicles: roster.entries.map((e) => ({
      ...e.vehicle,
      status: 'active' as const,
      tachographLinked: e.vehicle.pack === 'sp-fretamento',
      validFrom: VALID_FROM,
    })),
  };
}

/** The simulated city's taxi stands, as the municipality registers them (*pontos livres*). */
export function standRecords(pack: Extract<Pack, 'df-taxi' | 'belem-taxi'>): Records['stands'] {
  const graph = cityGraph(pack);
  return graph.placesOfKind('stand').map((p) => {
    const at = graph.node(p.node);
    return {
      id: `sim-stand-${p.id}`,
      pack,
      name: p.name,
      geometry: { type: 'Point' as const, coordinates: [at.lon, at.lat] as [number, number] },
      radiusM: STAND_RADIUS_M,
      places: p.standPlaces ?? 4,
      kind: 'livre' as const,
      validFrom: VALID_FROM,
    };
  });
}

/**
 * The charter contracts exactly as the simulator registers them (api/charter-contracts.ts: each
 * line a *fretamento contínuo* contract of its operator, and the lapsed *eventual* of a bus with
 * the vice `contractLapsed`), as rule records.
 */
export function contractRecords(roster: Roster): Records['contracts'] {
  return charterContractBodies(roster, VALID_FROM.slice(0, 10)).map(({ kind, validUntil, ...c }) => ({
    ...c,
    pack: 'sp-fretamento' as const,
    kind: kind === 'fretamento-eventual' ? ('eventual' as const) : ('continuo' as const),
    validFrom: VALID_FROM,
    validUntil: validUntil ?? null,
  }));
}

/** Where the shared reference data lives (VIGIA_SHARED_DATA, or ../shared/data beside the repository). */
export function sharedDataDir(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  // src/precision or dist/precision → the repository's parent directory.
  return process.env.VIGIA_SHARED_DATA ?? resolve(here, '../../../../shared/data');
}

/**
 * SPTrans' regular-service stops within the simulated São Paulo network's reach (GTFS
 * stops.txt), or none with the reason when the shared data is not there.
 */
export function spRegularStops(): { stops: Records['stops']; source: string } {
  const file = resolve(sharedDataDir(), 'sptrans_gtfs/stops.txt');
  if (!existsSync(file)) return { stops: [], source: `none (SPTrans GTFS not found at ${file})` };
  const graph = cityGraph('sp-fretamento');
  let [minLat, maxLat, minLon, maxLon] = [90, -90, 180, -180];
  for (const n of graph.nodes) {
    minLat = Math.min(minLat, n.lat);
    maxLat = Math.max(maxLat, n.lat);
    minLon = Math.min(minLon, n.lon);
    maxLon = Math.max(maxLon, n.lon);
  }
  const margin = 0.01;
  const stops = parseGtfsStops(readFileSync(file, 'utf8'), 'sptrans-gtfs').filter(
    (s) => s.lat >= minLat - margin && s.lat <= maxLat + margin && s.lon >= minLon - margin && s.lon <= maxLon + margin,
  );
  return { stops: stops.map((s) => ({ ...s, validFrom: VALID_FROM })), source: `${stops.length} SPTrans GTFS stops` };
}

/**
 * The UT's value in BRL that makes the DF pack's bandeirada (4 UT, Art. 45 I) the simulated
 * meter's flag drop; the per-km and hourly prices follow in UT.
 */
const DF_UT_BRL = TARIFF_TABLES['df-taxi'].flagDropCents / 100 / 4;

/** The tariff tables the simulated meters charge, as the packs' settings (decree data the packs ship without). */
export function simulatedTariffConfig(): PackConfigs {
  const df = TARIFF_TABLES['df-taxi'];
  const bel = TARIFF_TABLES['belem-taxi'];
  const ut = (cents: number) => cents / 100 / DF_UT_BRL;
  return {
    'df-taxi': { tariff: { kmB1Ut: ut(df.perKmBandeira1Cents), waitingHourUt: ut(df.waitingPerHourCents) } },
    'belem-taxi': {
      tariff: {
        bandeiradaCents: bel.flagDropCents,
        kmB1Cents: bel.perKmBandeira1Cents,
        kmB2Cents: Math.round(bel.perKmBandeira1Cents * 1.5),
        waitingHourCents: bel.waitingPerHourCents,
      },
    },
  };
}

export interface FleetRegistry {
  records: RegistryRecordsInput;
  /** Where the regular-service stops came from. */
  stopsSource: string;
}

/** Everything the rules read about one city's simulated fleet. */
export function fleetRegistry(roster: Roster, pack: Pack): FleetRegistry {
  const base = rosterRecords(roster);
  const unitValues: Records['unitValues'] = [
    { unit: 'UT', pack: 'df-taxi', validFrom: '2000-01-01', valueBrl: DF_UT_BRL, source: 'simulated meters' },
    { unit: 'ORTN', validFrom: '2000-01-01', valueBrl: 80, source: 'illustrative' },
    { unit: 'UPDF', validFrom: '2000-01-01', valueBrl: 120, source: 'illustrative' },
    { unit: 'IPCA-E', pack: 'belem-taxi', validFrom: '2000-01-01', valueBrl: 4.5, source: 'illustrative' },
  ];
  if (pack === 'sp-fretamento') {
    const { stops, source } = spRegularStops();
    return { records: { ...base, stops, contracts: contractRecords(roster), unitValues }, stopsSource: source };
  }
  return { records: { ...base, stands: standRecords(pack), unitValues }, stopsSource: 'none (no charter buses)' };
}
