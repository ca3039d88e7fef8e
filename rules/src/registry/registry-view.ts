import type { Pack } from '@vigia/core';
import type {
  ContractRecord,
  DriverRecord,
  FineUnit,
  HolidayOverrideRecord,
  OperatorRecord,
  StandRecord,
  StopRecord,
  UnitValueRecord,
  VehicleRecord,
  ZoneKind,
  ZoneRecord,
} from './records.js';

export interface StopHit {
  readonly stop: StopRecord;
  readonly distanceM: number;
}

export interface StandHit {
  readonly stand: StandRecord;
  /** 0 inside the stand's area, else metres to its edge (or to the circle of a Point stand). */
  readonly distanceM: number;
}

export interface ZoneHit {
  readonly zone: ZoneRecord;
  /** 0 inside, else metres to the zone's edge. */
  readonly distanceM: number;
}

/**
 * The read side of the registry, as the rules see it. Every lookup takes the instant (epoch ms)
 * of the sample being judged and answers with the record versions in force at that instant.
 * Implementations must be pure reads: the engine may call them many times per sample.
 */
export interface RegistryView {
  vehicle(id: string, atMs: number): VehicleRecord | null;
  /** Every version of a vehicle, oldest first (empty when the id was never registered). */
  vehicleHistory(id: string): readonly VehicleRecord[];
  operator(id: string, atMs: number): OperatorRecord | null;
  driver(id: string, atMs: number): DriverRecord | null;
  /** Regular-service stops within `radiusM`, nearest first. */
  stopsWithin(lat: number, lon: number, radiusM: number, atMs: number): StopHit[];
  /**
   * The pack's stands whose area, grown by `marginM`, contains the point; nearest first. Read-only
   * answers (here and for zones and contracts): "none", the usual answer, is one shared empty list.
   */
  standsAt(lat: number, lon: number, atMs: number, pack: Pack, marginM?: number): readonly StandHit[];
  stand(id: string, atMs: number): StandRecord | null;
  /** The pack's zones (of the given kinds) whose area, grown by `marginM`, contains the point. */
  zonesAt(
    lat: number,
    lon: number,
    atMs: number,
    pack: Pack,
    kinds: readonly ZoneKind[],
    marginM?: number,
  ): readonly ZoneHit[];
  /** Charter contracts in force that list the vehicle. */
  contractsForVehicle(vehicleId: string, atMs: number): readonly ContractRecord[];
  /** Metres from the point to the contract's declared route. */
  distanceToRouteM(contract: ContractRecord, lat: number, lon: number): number;
  /** The unit's BRL value in force on a local date; a pack-specific value beats a general one. */
  unitValue(unit: FineUnit, pack: Pack, date: string): UnitValueRecord | null;
  holidayOverrides(pack: Pack): readonly HolidayOverrideRecord[];
}
