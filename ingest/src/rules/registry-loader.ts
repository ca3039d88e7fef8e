import type { Database } from '@vigia/db';
import { createInMemoryRegistry, type InMemoryRegistry, type RegistryRecordsInput } from '@vigia/rules';
import type { Logger } from 'pino';

/**
 * Builds the rule engine's registry from `registry_history`: every version of every record, in
 * force from `valid_from` to `valid_to`, so each sample is judged against the registry as it was.
 * The API's records are mapped to the rule core's record types here, in one place.
 */
interface HistoryRow {
  collection: string;
  record: Record<string, unknown>;
  valid_from: Date;
  valid_to: Date | null;
}

type Rec = Record<string, unknown>;
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

const operatorKind = (r: Rec): string => {
  switch (r.kind) {
    case 'company':
      return r.pack === 'sp-fretamento' ? 'charter-company' : 'taxi-company';
    case 'permit-holder':
      return 'taxi-autonomous';
    default:
      return String(r.kind);
  }
};
const operatorStatus = (r: Rec): string =>
  r.retiredAt || r.status === 'withdrawn' ? 'revoked' : r.status === 'suspended' ? 'suspended' : 'authorized';

export function recordsFromHistory(rows: readonly HistoryRow[]): RegistryRecordsInput {
  const out: Required<{ [K in keyof RegistryRecordsInput]-?: NonNullable<RegistryRecordsInput[K]> }> = {
    vehicles: [],
    operators: [],
    drivers: [],
    stops: [],
    stands: [],
    zones: [],
    contracts: [],
    unitValues: [],
    holidayOverrides: [],
  };
  const operatorPack = new Map<string, string>();
  for (const row of rows)
    if (row.collection === 'operators') operatorPack.set(String(row.record.id), String(row.record.pack));
  for (const { collection, record: r, valid_from, valid_to } of rows) {
    const versioned = { validFrom: new Date(valid_from), validTo: valid_to ? new Date(valid_to) : null };
    // A retired record is out of force from its retirement on, except a vehicle: the rules must
    // still see it, withdrawn (FRET_UNREGISTERED_VEHICLE).
    if (r.retiredAt && collection !== 'vehicles' && collection !== 'operators') continue;
    switch (collection) {
      case 'vehicles':
        if (typeof r.manufactureYear !== 'number') continue;
        out.vehicles.push({
          ...(r as object),
          status: r.retiredAt ? 'withdrawn' : r.status,
          ...versioned,
        } as (typeof out.vehicles)[number]);
        break;
      case 'operators':
        out.operators.push({
          ...(r as object),
          kind: operatorKind(r),
          status: operatorStatus(r),
          ...versioned,
        } as (typeof out.operators)[number]);
        break;
      case 'drivers': {
        const pack = str(r.pack) ?? operatorPack.get(String(r.operatorId));
        if (pack) out.drivers.push({ ...(r as object), pack, ...versioned } as (typeof out.drivers)[number]);
        break;
      }
      case 'stops':
        out.stops.push({ ...(r as object), ...versioned } as (typeof out.stops)[number]);
        break;
      case 'stands':
        out.stands.push({ ...(r as object), ...versioned } as (typeof out.stands)[number]);
        break;
      case 'zones':
        out.zones.push({ ...(r as object), ...versioned } as (typeof out.zones)[number]);
        break;
      case 'contracts': {
        const places = (list: unknown) =>
          (Array.isArray(list) ? (list as Rec[]) : []).map((p, i) => ({ ...p, id: str(p.id) ?? `${i + 1}` }));
        out.contracts.push({
          ...(r as object),
          pack: 'sp-fretamento',
          kind: r.kind === 'fretamento-eventual' ? 'eventual' : 'continuo',
          boardingPlaces: places(r.boardingPlaces),
          alightingPlaces: places(r.alightingPlaces),
          ...versioned,
        } as (typeof out.contracts)[number]);
        break;
      }
      case 'unit-values':
        if (valid_to === null)
          out.unitValues.push({
            unit: r.unit,
            validFrom: r.validFrom,
            valueBrl: r.valueBrl,
          } as (typeof out.unitValues)[number]);
        break;
      case 'holidays':
        if (valid_to === null) {
          out.holidayOverrides.push({
            pack: r.pack,
            date: r.date,
            name: r.name,
            action: r.kind,
          } as (typeof out.holidayOverrides)[number]);
        }
        break;
    }
  }
  return out;
}

export async function loadRegistry(
  db: Database,
  log: Logger,
): Promise<{ registry: InMemoryRegistry; vehicleIds: Set<string> }> {
  const t = performance.now();
  const { rows } = await db.query<HistoryRow>(
    'SELECT collection, record, valid_from, valid_to FROM registry_history ORDER BY collection, id, valid_from',
  );
  const records = recordsFromHistory(rows);
  const registry = createInMemoryRegistry(records);
  log.info({ versions: rows.length, ms: Math.round(performance.now() - t) }, 'rule registry loaded');
  return { registry, vehicleIds: new Set((records.vehicles ?? []).map((v) => v.id)) };
}
