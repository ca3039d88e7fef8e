import type { Pack } from '@vigia/core';
import Flatbush from 'flatbush';
import KDBush from 'kdbush';
import { distanceToAreaM } from '../geo/area.js';
import { degreesAround, haversineM, localFrame, originToSegmentM, toLocal } from '../geo/distance.js';
import { type BBox, bboxOfArea } from '../geo/geojson.js';
import { BoxGrid } from './box-grid.js';
import {
  type ContractRecord,
  type DriverRecord,
  type FineUnit,
  type HolidayOverrideRecord,
  inForce,
  type OperatorRecord,
  type RegistryRecords,
  type RegistryRecordsInput,
  registryRecordsSchema,
  type StandRecord,
  type StopRecord,
  type UnitValueRecord,
  type VehicleRecord,
  type ZoneKind,
  type ZoneRecord,
} from './records.js';
import type { RegistryView, StandHit, StopHit, ZoneHit } from './registry-view.js';

/**
 * The registry held in memory, built from record arrays (what the registry tables return), with
 * spatial indexes: a KD-tree (kdbush) over the tens of thousands of stops, and packed R-trees
 * (flatbush) over stands, zones and route segments. Every version of every record is indexed;
 * a lookup filters the candidates by the instant asked for. The indexes are static: a registry
 * change builds a new InMemoryRegistry (cheap: 22 000 stops index in a few milliseconds) and the
 * engine is handed the new view.
 */

type Versioned = { validFrom: Date; validTo: Date | null };

function groupVersions<T extends Versioned & { id: string }>(records: readonly T[], kind: string): Map<string, T[]> {
  const byId = new Map<string, T[]>();
  for (const r of records) {
    const list = byId.get(r.id);
    if (list) list.push(r);
    else byId.set(r.id, [r]);
  }
  for (const [id, list] of byId) {
    list.sort((a, b) => a.validFrom.getTime() - b.validFrom.getTime());
    for (let i = 0; i < list.length; i++) {
      const v = list[i];
      if (!v) continue;
      if (v.validTo !== null && v.validTo.getTime() <= v.validFrom.getTime()) {
        throw new Error(`${kind} ${id}: a version ends before it starts`);
      }
      const next = list[i + 1];
      if (next && (v.validTo === null || v.validTo.getTime() > next.validFrom.getTime())) {
        // Two versions in force at once would make "the registry as it was then" ambiguous.
        throw new Error(`${kind} ${id}: versions overlap at ${next.validFrom.toISOString()}`);
      }
    }
  }
  return byId;
}

/** "None" from a spatial or contract look-up (most answers): one shared, frozen empty list. */
const noHits: readonly never[] = Object.freeze([]);

function versionAt<T extends Versioned>(versions: readonly T[] | undefined, ms: number): T | null {
  if (!versions) return null;
  for (let i = versions.length - 1; i >= 0; i--) {
    const v = versions[i];
    if (v && v.validFrom.getTime() <= ms) return inForce(v, ms) ? v : null;
  }
  return null;
}

function areaBox(stand: StandRecord): BBox {
  if (stand.geometry.type === 'Polygon') return bboxOfArea(stand.geometry);
  const [lon, lat] = stand.geometry.coordinates;
  const { dLat, dLon } = degreesAround(lat, stand.radiusM ?? 0);
  return [lon - dLon, lat - dLat, lon + dLon, lat + dLat];
}

function standDistanceM(stand: StandRecord, lat: number, lon: number): number {
  if (stand.geometry.type === 'Polygon') return distanceToAreaM(lat, lon, stand.geometry);
  const [slon, slat] = stand.geometry.coordinates;
  return Math.max(0, haversineM(lat, lon, slat, slon) - (stand.radiusM ?? 0));
}

interface RouteSegment {
  readonly contractIndex: number;
  readonly a: readonly [number, number];
  readonly b: readonly [number, number];
}

function buildBoxIndex(boxes: readonly BBox[]): Flatbush | null {
  if (boxes.length === 0) return null;
  const index = new Flatbush(boxes.length);
  for (const [minX, minY, maxX, maxY] of boxes) index.add(minX, minY, maxX, maxY);
  index.finish();
  return index;
}

export class InMemoryRegistry implements RegistryView {
  readonly records: RegistryRecords;
  private readonly vehicles: Map<string, VehicleRecord[]>;
  private readonly operators: Map<string, OperatorRecord[]>;
  private readonly drivers: Map<string, DriverRecord[]>;
  private readonly stands: Map<string, StandRecord[]>;
  private readonly stopList: StopRecord[];
  private readonly stopIndex: KDBush | null;
  private readonly standList: StandRecord[];
  private readonly standIndex: Flatbush | null;
  /** Which places have a stand near them at all: most look-ups need no search (box-grid.ts). */
  private readonly standGrid: BoxGrid;
  private readonly zoneList: ZoneRecord[];
  private readonly zoneIndex: Flatbush | null;
  private readonly zoneGrid: BoxGrid;
  private readonly contractsByVehicle = new Map<string, ContractRecord[]>();
  private readonly contractIndexOf = new Map<ContractRecord, number>();
  private readonly segments: RouteSegment[] = [];
  private readonly segmentIndex: Flatbush | null;
  private readonly contractSegments = new Map<ContractRecord, RouteSegment[]>();
  private readonly unitValues = new Map<FineUnit, UnitValueRecord[]>();
  private readonly overrides = new Map<Pack, HolidayOverrideRecord[]>();

  /** Validates the records (zod) and builds the indexes; throws on invalid or overlapping versions. */
  constructor(input: RegistryRecordsInput) {
    const records = registryRecordsSchema.parse(input);
    this.records = records;
    this.vehicles = groupVersions(records.vehicles, 'vehicle');
    this.operators = groupVersions(records.operators, 'operator');
    this.drivers = groupVersions(records.drivers, 'driver');
    this.stands = groupVersions(records.stands, 'stand');
    groupVersions(records.stops, 'stop');
    groupVersions(records.zones, 'zone');
    groupVersions(records.contracts, 'contract');

    this.stopList = records.stops;
    if (records.stops.length > 0) {
      const index = new KDBush(records.stops.length);
      for (const s of records.stops) index.add(s.lon, s.lat);
      index.finish();
      this.stopIndex = index;
    } else {
      this.stopIndex = null;
    }

    this.standList = records.stands;
    const standBoxes = records.stands.map(areaBox);
    this.standIndex = buildBoxIndex(standBoxes);
    this.standGrid = new BoxGrid(standBoxes);
    this.zoneList = records.zones;
    const zoneBoxes = records.zones.map((z) => bboxOfArea(z.geometry));
    this.zoneIndex = buildBoxIndex(zoneBoxes);
    this.zoneGrid = new BoxGrid(zoneBoxes);

    records.contracts.forEach((contract, contractIndex) => {
      this.contractIndexOf.set(contract, contractIndex);
      for (const vehicleId of contract.vehicleIds) {
        const list = this.contractsByVehicle.get(vehicleId);
        if (list) list.push(contract);
        else this.contractsByVehicle.set(vehicleId, [contract]);
      }
      const own: RouteSegment[] = [];
      const coords = contract.route.coordinates;
      for (let i = 1; i < coords.length; i++) {
        const a = coords[i - 1];
        const b = coords[i];
        if (!a || !b) continue;
        const segment: RouteSegment = { contractIndex, a: [a[0], a[1]], b: [b[0], b[1]] };
        own.push(segment);
        this.segments.push(segment);
      }
      this.contractSegments.set(contract, own);
    });
    this.segmentIndex = buildBoxIndex(
      this.segments.map((s) => [
        Math.min(s.a[0], s.b[0]),
        Math.min(s.a[1], s.b[1]),
        Math.max(s.a[0], s.b[0]),
        Math.max(s.a[1], s.b[1]),
      ]),
    );

    for (const uv of records.unitValues) {
      const list = this.unitValues.get(uv.unit);
      if (list) list.push(uv);
      else this.unitValues.set(uv.unit, [uv]);
    }
    for (const list of this.unitValues.values()) list.sort((a, b) => (a.validFrom < b.validFrom ? -1 : 1));
    for (const o of records.holidayOverrides) {
      const list = this.overrides.get(o.pack);
      if (list) list.push(o);
      else this.overrides.set(o.pack, [o]);
    }
  }

  vehicle(id: string, atMs: number): VehicleRecord | null {
    return versionAt(this.vehicles.get(id), atMs);
  }

  vehicleHistory(id: string): readonly VehicleRecord[] {
    return this.vehicles.get(id) ?? [];
  }

  operator(id: string, atMs: number): OperatorRecord | null {
    return versionAt(this.operators.get(id), atMs);
  }

  driver(id: string, atMs: number): DriverRecord | null {
    return versionAt(this.drivers.get(id), atMs);
  }

  stand(id: string, atMs: number): StandRecord | null {
    return versionAt(this.stands.get(id), atMs);
  }

  stopsWithin(lat: number, lon: number, radiusM: number, atMs: number): StopHit[] {
    if (!this.stopIndex) return [];
    const { dLat, dLon } = degreesAround(lat, radiusM);
    const hits: StopHit[] = [];
    for (const i of this.stopIndex.range(lon - dLon, lat - dLat, lon + dLon, lat + dLat)) {
      const stop = this.stopList[i];
      if (!stop || !inForce(stop, atMs)) continue;
      const distanceM = haversineM(lat, lon, stop.lat, stop.lon);
      if (distanceM <= radiusM) hits.push({ stop, distanceM });
    }
    return hits.sort((a, b) => a.distanceM - b.distanceM);
  }

  standsAt(lat: number, lon: number, atMs: number, pack: Pack, marginM = 0): readonly StandHit[] {
    if (!this.standIndex) return noHits;
    const { dLat, dLon } = degreesAround(lat, marginM);
    if (!this.standGrid.mayIntersect(lon - dLon, lat - dLat, lon + dLon, lat + dLat)) return noHits;
    const hits: StandHit[] = [];
    for (const i of this.standIndex.search(lon - dLon, lat - dLat, lon + dLon, lat + dLat)) {
      const stand = this.standList[i];
      if (!stand || stand.pack !== pack || !inForce(stand, atMs)) continue;
      const distanceM = standDistanceM(stand, lat, lon);
      if (distanceM <= marginM) hits.push({ stand, distanceM });
    }
    return hits.sort((a, b) => a.distanceM - b.distanceM);
  }

  zonesAt(
    lat: number,
    lon: number,
    atMs: number,
    pack: Pack,
    kinds: readonly ZoneKind[],
    marginM = 0,
  ): readonly ZoneHit[] {
    if (!this.zoneIndex) return noHits;
    const { dLat, dLon } = degreesAround(lat, marginM);
    if (!this.zoneGrid.mayIntersect(lon - dLon, lat - dLat, lon + dLon, lat + dLat)) return noHits;
    const hits: ZoneHit[] = [];
    for (const i of this.zoneIndex.search(lon - dLon, lat - dLat, lon + dLon, lat + dLat)) {
      const zone = this.zoneList[i];
      if (!zone || zone.pack !== pack || !kinds.includes(zone.kind) || !inForce(zone, atMs)) continue;
      const distanceM = distanceToAreaM(lat, lon, zone.geometry);
      if (distanceM <= marginM) hits.push({ zone, distanceM });
    }
    return hits.sort((a, b) => a.distanceM - b.distanceM);
  }

  contractsForVehicle(vehicleId: string, atMs: number): readonly ContractRecord[] {
    const contracts = this.contractsByVehicle.get(vehicleId);
    return contracts === undefined ? noHits : contracts.filter((c) => inForce(c, atMs));
  }

  distanceToRouteM(contract: ContractRecord, lat: number, lon: number): number {
    const frame = localFrame(lat, lon);
    const measure = (s: RouteSegment): number => {
      const [ax, ay] = toLocal(frame, s.a[1], s.a[0]);
      const [bx, by] = toLocal(frame, s.b[1], s.b[0]);
      return originToSegmentM(ax, ay, bx, by);
    };
    // Most samples are on route: look in a 1 km box first, fall back to every segment of the route.
    const contractIndex = this.contractIndexOf.get(contract);
    if (this.segmentIndex && contractIndex !== undefined) {
      const { dLat, dLon } = degreesAround(lat, 1000);
      let best = Number.POSITIVE_INFINITY;
      for (const i of this.segmentIndex.search(lon - dLon, lat - dLat, lon + dLon, lat + dLat)) {
        const s = this.segments[i];
        if (!s || s.contractIndex !== contractIndex) continue;
        const d = measure(s);
        if (d < best) best = d;
      }
      if (best <= 1000) return best;
    }
    let best = Number.POSITIVE_INFINITY;
    for (const s of this.contractSegments.get(contract) ?? []) {
      const d = measure(s);
      if (d < best) best = d;
    }
    return best;
  }

  unitValue(unit: FineUnit, pack: Pack, date: string): UnitValueRecord | null {
    const list = this.unitValues.get(unit);
    if (!list) return null;
    let general: UnitValueRecord | null = null;
    let specific: UnitValueRecord | null = null;
    for (const uv of list) {
      if (uv.validFrom > date) break;
      if (uv.pack === pack) specific = uv;
      else if (uv.pack === null) general = uv;
    }
    return specific ?? general;
  }

  holidayOverrides(pack: Pack): readonly HolidayOverrideRecord[] {
    return this.overrides.get(pack) ?? [];
  }
}

/** Build an in-memory registry from record arrays (validated with zod). */
export function createInMemoryRegistry(input: RegistryRecordsInput): InMemoryRegistry {
  return new InMemoryRegistry(input);
}
