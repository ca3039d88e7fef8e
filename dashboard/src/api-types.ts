/**
 * The API shapes the dashboard reads (see shared/API.md).
 *
 * `FleetUpdate` mirrors `FleetUpdate` in core/src/live.ts. It is copied rather than imported because
 * @vigia/core pulls Node-only modules (logger, config, bus) into whatever imports it; keep the two in step.
 */

export type Pack = 'sp-fretamento' | 'df-taxi' | 'belem-taxi';
export type ServiceType = 'taxi' | 'fretamento-continuo' | 'fretamento-eventual' | 'particular';
export type MeterState = 'free' | 'hired' | 'stopped' | 'off';
export type Tariff = 1 | 2;

/** One vehicle's latest position, as pushed on Socket.IO `/live`, event `fleet` (an array of these). */
export interface FleetUpdate {
  vehicleId: string;
  plate: string;
  operatorId: string | null;
  pack: Pack;
  serviceType: ServiceType;
  /** ISO 8601 UTC instant of the sample. */
  ts: string;
  lat: number;
  lon: number;
  speedKmh: number | null;
  headingDeg: number | null;
  meterState: MeterState | null;
  tariff: Tariff | null;
  passengers: number | null;
  doorOpen: boolean | null;
  ignition: boolean | null;
}

/** The `live` part of a `GET /v1/vehicles` item. Fields beyond `ts`, `lat`, `lon` may be absent. */
export interface VehicleLive {
  ts: string;
  lat: number;
  lon: number;
  speedKmh?: number | null;
  headingDeg?: number | null;
  meterState?: MeterState | null;
  tariff?: Tariff | null;
  passengers?: number | null;
  doorOpen?: boolean | null;
  ignition?: boolean | null;
  online?: boolean;
}

export interface VehicleItem {
  id: string;
  plate: string;
  pack: Pack;
  serviceType: ServiceType;
  capacity?: number | null;
  operatorId: string | null;
  status?: 'active' | 'suspended' | 'withdrawn';
  live: VehicleLive | null;
}

export interface OperatorItem {
  id: string;
  name: string;
  pack?: Pack;
  kind?: string;
}

/** Every list endpoint pages the same way: follow `?cursor=<next>` until `next` is null. */
export interface Page<T> {
  items: T[];
  next: string | null;
}

/** `GET /v1/dashboard-config` (no auth). */
export interface DashboardConfig {
  styleUrl: string;
  /** A vehicle with no sample for longer than this is shown as offline. */
  offlineAfterS: number;
}
