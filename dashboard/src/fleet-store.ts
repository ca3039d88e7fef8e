import {
  type FleetDelta,
  type FleetDeltaRow,
  type FleetUpdate,
  movesRecordLength,
  type Pack,
  type ServiceType,
  type VehicleItem,
  type VehicleLive,
} from './api-types.js';
import { classifyVehicle, type VehicleStatus, vehicleStatuses } from './vehicle-status.js';

/** Everything the dashboard knows about one vehicle: registry facts plus its latest sample. */
export interface TrackedVehicle extends NullableReadings {
  id: string;
  plate: string;
  pack: Pack;
  serviceType: ServiceType;
  operatorId: string | null;
  capacity: number | null;
  /**
   * Null until the vehicle's first sample: such a vehicle is counted but not drawn. Moved in place
   * as samples arrive (a new object per sample, 2 000 a second with a state's fleet, was the page's
   * largest source of garbage that outlived the young generation): copy it to keep a past position.
   */
  position: { lat: number; lon: number } | null;
  lastSeenMs: number | null;
  status: VehicleStatus;
}

export type StatusCounts = Record<VehicleStatus, number>;

export interface FleetCounts {
  total: number;
  online: number;
  byStatus: StatusCounts;
}

/** The readings a sample carries beside its position, as the live feed sends them. */
type Readings = Pick<
  FleetUpdate,
  'speedKmh' | 'headingDeg' | 'meterState' | 'tariff' | 'passengers' | 'doorOpen' | 'ignition'
>;
type NullableReadings = { [K in keyof Readings]: Readings[K] | null };

interface Sample extends Readings {
  lastSeenMs: number;
  lat: number;
  lon: number;
}

export interface FleetStoreOptions {
  offlineAfterS: number;
  /** Current time in epoch ms, on the server's clock (see server-clock.ts). */
  now: () => number;
}

/**
 * Told after each change: the ids of the vehicles that changed, or `null` when any may have (a
 * listing merged, the store cleared). A layer that patches what it drew reads the ids; others
 * just redraw.
 */
export type FleetListener = (changed: ReadonlySet<string> | null) => void;

/**
 * The live fleet held in memory. It never touches the map: it tells subscribers that something
 * changed and lets them read the state when they are ready to draw it.
 */
export class FleetStore {
  private readonly vehicles = new Map<string, TrackedVehicle>();
  /** Kept as statuses change rather than counted on demand: the side panel asks after every push. */
  private byStatus = zeroCounts();
  private readonly listeners = new Set<FleetListener>();
  private readonly offlineAfterS: number;
  private readonly now: () => number;

  constructor(options: FleetStoreOptions) {
    this.offlineAfterS = options.offlineAfterS;
    this.now = options.now;
  }

  subscribe(listener: FleetListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get(id: string): TrackedVehicle | undefined {
    return this.vehicles.get(id);
  }

  all(): IterableIterator<TrackedVehicle> {
    return this.vehicles.values();
  }

  get size(): number {
    return this.vehicles.size;
  }

  /** Forgets every vehicle: another token may see another fleet. */
  clear(): void {
    this.vehicles.clear();
    this.byStatus = zeroCounts();
    this.notify(null);
  }

  /** Merges a `GET /v1/vehicles` listing; registry facts win, but a sample never replaces a newer one. */
  mergeListing(items: readonly VehicleItem[]): void {
    for (const item of items) {
      const vehicle =
        this.vehicles.get(item.id) ??
        this.add(emptyVehicle(item.id, item.plate, item.pack, item.serviceType, item.operatorId));
      vehicle.plate = item.plate;
      vehicle.pack = item.pack;
      vehicle.serviceType = item.serviceType;
      vehicle.operatorId = item.operatorId;
      vehicle.capacity = item.capacity ?? null;
      const sample = item.live ? sampleFromLive(item.live) : null;
      if (sample) applySample(vehicle, sample);
      this.classify(vehicle);
    }
    this.notify(null);
  }

  /** Applies a `fleet` batch. A vehicle not seen in the listing yet is created from its update. */
  applyUpdates(updates: readonly FleetUpdate[]): void {
    const changed = new Set<string>();
    const now = this.now();
    for (const update of updates) {
      const sample = sampleFromUpdate(update);
      if (!sample) continue;
      const vehicle =
        this.vehicles.get(update.vehicleId) ??
        this.add(emptyVehicle(update.vehicleId, update.plate, update.pack, update.serviceType, update.operatorId));
      vehicle.plate = update.plate;
      vehicle.operatorId = update.operatorId;
      vehicle.serviceType = update.serviceType;
      if (applySample(vehicle, sample)) {
        this.classify(vehicle, now);
        changed.add(vehicle.id);
      }
    }
    if (changed.size > 0) this.notify(changed);
  }

  /**
   * Applies a `fleet-delta` push (a viewport socket's): each row changes only the fields it
   * carries. A vehicle seen for the first time needs a full row (the server sends one first).
   */
  applyDelta(delta: FleetDelta, ids: readonly string[] = []): void {
    const changed = new Set<string>();
    const now = this.now();
    if (delta.moves) this.applyMoves(delta.base, new Float64Array(delta.moves), ids, now, changed);
    for (const row of delta.rows) {
      if (typeof row?.id !== 'string' || typeof row.t !== 'number') continue;
      let vehicle = this.vehicles.get(row.id);
      if (!vehicle) {
        if (row.plate === undefined || row.pack === undefined || row.serviceType === undefined) continue;
        vehicle = this.add(emptyVehicle(row.id, row.plate, row.pack, row.serviceType, row.operatorId ?? null));
      }
      if (applyRow(vehicle, row, delta.base + row.t)) {
        this.classify(vehicle, now);
        changed.add(vehicle.id);
      }
    }
    if (changed.size > 0) this.notify(changed);
  }

  /**
   * A packed push's `moves`: records of vehicles that only moved, read in place (no object per
   * vehicle); `ids[i]` is the vehicle of index `i`. A record of an unknown index is skipped.
   */
  private applyMoves(base: number, records: Float64Array, ids: readonly string[], now: number, changed: Set<string>) {
    for (let o = 0; o + movesRecordLength <= records.length; o += movesRecordLength) {
      const id = ids[records[o] ?? -1];
      const vehicle = id === undefined ? undefined : this.vehicles.get(id);
      if (!vehicle) continue;
      const lastSeenMs = base + (records[o + 1] ?? Number.NaN);
      const lat = records[o + 2] ?? Number.NaN;
      const lon = records[o + 3] ?? Number.NaN;
      if (!Number.isFinite(lastSeenMs) || !Number.isFinite(lat) || !Number.isFinite(lon)) continue;
      if (vehicle.lastSeenMs !== null && lastSeenMs < vehicle.lastSeenMs) continue;
      moveTo(vehicle, lat, lon);
      vehicle.lastSeenMs = lastSeenMs;
      vehicle.speedKmh = nullForNaN(records[o + 4]);
      vehicle.headingDeg = nullForNaN(records[o + 5]);
      this.classify(vehicle, now);
      changed.add(vehicle.id);
    }
  }

  /** Re-evaluates time-dependent statuses (going offline happens with no message at all). */
  refreshStatuses(): void {
    const changed = new Set<string>();
    // One reading of the clock for the whole fleet (20 000 vehicles on a regulator's desk).
    const now = this.now();
    for (const vehicle of this.vehicles.values()) {
      const before = vehicle.status;
      this.classify(vehicle, now);
      if (vehicle.status !== before) changed.add(vehicle.id);
    }
    if (changed.size > 0) this.notify(changed);
  }

  counts(): FleetCounts {
    const byStatus = { ...this.byStatus };
    return { total: this.vehicles.size, online: this.vehicles.size - byStatus.offline, byStatus };
  }

  private add(vehicle: TrackedVehicle): TrackedVehicle {
    this.vehicles.set(vehicle.id, vehicle);
    this.byStatus[vehicle.status] += 1;
    return vehicle;
  }

  /** Judges a vehicle already in the store again. */
  private classify(vehicle: TrackedVehicle, now = this.now()): void {
    const before = vehicle.status;
    vehicle.status = classifyVehicle(vehicle, now, this.offlineAfterS);
    if (vehicle.status === before) return;
    this.byStatus[before] -= 1;
    this.byStatus[vehicle.status] += 1;
  }

  private notify(changed: ReadonlySet<string> | null): void {
    for (const listener of this.listeners) listener(changed);
  }
}

function zeroCounts(): StatusCounts {
  return Object.fromEntries(vehicleStatuses.map((status) => [status, 0])) as StatusCounts;
}

function emptyVehicle(
  id: string,
  plate: string,
  pack: Pack,
  serviceType: ServiceType,
  operatorId: string | null,
): TrackedVehicle {
  return {
    id,
    plate,
    pack,
    serviceType,
    operatorId,
    capacity: null,
    position: null,
    lastSeenMs: null,
    speedKmh: null,
    headingDeg: null,
    meterState: null,
    tariff: null,
    passengers: null,
    doorOpen: null,
    ignition: null,
    status: 'offline',
  };
}

function nullForNaN(value: number | undefined): number | null {
  return value === undefined || Number.isNaN(value) ? null : value;
}

function moveTo(vehicle: TrackedVehicle, lat: number, lon: number): void {
  if (vehicle.position === null) vehicle.position = { lat, lon };
  else {
    vehicle.position.lat = lat;
    vehicle.position.lon = lon;
  }
}

/** Returns whether the sample was taken: samples may arrive out of order (a listing fetched before a push). */
function applySample(vehicle: TrackedVehicle, sample: Sample): boolean {
  if (vehicle.lastSeenMs !== null && sample.lastSeenMs < vehicle.lastSeenMs) return false;
  moveTo(vehicle, sample.lat, sample.lon);
  vehicle.lastSeenMs = sample.lastSeenMs;
  vehicle.speedKmh = sample.speedKmh;
  vehicle.headingDeg = sample.headingDeg;
  vehicle.meterState = sample.meterState;
  vehicle.tariff = sample.tariff;
  vehicle.passengers = sample.passengers;
  vehicle.doorOpen = sample.doorOpen;
  vehicle.ignition = sample.ignition;
  return true;
}

/** A delta row onto the vehicle; false when it is older than what the vehicle shows. */
function applyRow(vehicle: TrackedVehicle, row: FleetDeltaRow, lastSeenMs: number): boolean {
  if (!Number.isFinite(lastSeenMs)) return false;
  if (vehicle.lastSeenMs !== null && lastSeenMs < vehicle.lastSeenMs) return false;
  if (row.plate !== undefined) vehicle.plate = row.plate;
  if (row.operatorId !== undefined) vehicle.operatorId = row.operatorId;
  if (row.pack !== undefined) vehicle.pack = row.pack;
  if (row.serviceType !== undefined) vehicle.serviceType = row.serviceType;
  // Only the coordinate that changed travels (a taxi heading due north keeps its longitude).
  const lat = row.lat ?? vehicle.position?.lat;
  const lon = row.lon ?? vehicle.position?.lon;
  if (lat !== undefined && lon !== undefined && Number.isFinite(lat) && Number.isFinite(lon)) {
    if (row.lat !== undefined || row.lon !== undefined) moveTo(vehicle, lat, lon);
  }
  vehicle.lastSeenMs = lastSeenMs;
  if (row.speedKmh !== undefined) vehicle.speedKmh = row.speedKmh;
  if (row.headingDeg !== undefined) vehicle.headingDeg = row.headingDeg;
  if (row.meterState !== undefined) vehicle.meterState = row.meterState;
  if (row.tariff !== undefined) vehicle.tariff = row.tariff;
  if (row.passengers !== undefined) vehicle.passengers = row.passengers;
  if (row.doorOpen !== undefined) vehicle.doorOpen = row.doorOpen;
  if (row.ignition !== undefined) vehicle.ignition = row.ignition;
  return true;
}

function sampleFromLive(live: VehicleLive): Sample | null {
  return buildSample(live.ts, live.lat, live.lon, {
    speedKmh: live.speedKmh ?? null,
    headingDeg: live.headingDeg ?? null,
    meterState: live.meterState ?? null,
    tariff: live.tariff ?? null,
    passengers: live.passengers ?? null,
    doorOpen: live.doorOpen ?? null,
    ignition: live.ignition ?? null,
  });
}

function sampleFromUpdate(update: FleetUpdate): Sample | null {
  if (typeof update.vehicleId !== 'string') return null;
  return buildSample(update.ts, update.lat, update.lon, update);
}

/**
 * Drops a sample the map cannot place rather than letting one bad message break the whole layer;
 * the server validates its output with zod, so this only guards against version skew.
 */
function buildSample(
  ts: string,
  lat: number,
  lon: number,
  rest: Omit<Sample, 'lastSeenMs' | 'lat' | 'lon'>,
): Sample | null {
  const lastSeenMs = Date.parse(ts);
  if (!Number.isFinite(lastSeenMs) || !Number.isFinite(lat) || !Number.isFinite(lon)) return null;
  return {
    lastSeenMs,
    lat,
    lon,
    speedKmh: rest.speedKmh,
    headingDeg: rest.headingDeg,
    meterState: rest.meterState,
    tariff: rest.tariff,
    passengers: rest.passengers,
    doorOpen: rest.doorOpen,
    ignition: rest.ignition,
  };
}
