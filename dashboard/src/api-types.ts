/**
 * The API shapes the dashboard reads (see shared/API.md).
 *
 * `FleetUpdate` and `LiveViolation` mirror the types of the same names in core/src/live.ts. They are
 * copied rather than imported because @vigia/core pulls Node-only modules (logger, config, bus) into
 * whatever imports it; keep them in step.
 */

// Imported rather than read from the global `GeoJSON` namespace: the tests' compilation, which
// reaches this file through the modules it imports, does not load the dashboard's ambient types.
import type { LineString, MultiPolygon, Point, Polygon } from 'geojson';
import type { FleetDeltaField } from '../../api/src/live/live-protocol.js';

// The viewport contract's types come from the API's zod-only module (as the analytics types do).
export type { Viewport, ViewportAck, ViewportMessage } from '../../api/src/live/live-protocol.js';

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

/**
 * One vehicle in a `fleet-delta` push (a socket that sent its viewport): `id`, `t` (ms after the
 * push's `base`) and the fields that changed since the socket's previous row of it; the first row
 * of a vehicle carries them all. Mirrors `FleetDeltaRow` in api/src/live/fleet-delta.ts.
 */
export type FleetDeltaRow = { id: string; t: number; i?: number } & Partial<Pick<FleetUpdate, FleetDeltaField>>;

/**
 * A `fleet-delta` push: the rows of the vehicles that changed, `base` in epoch ms; on a socket that
 * asked for `packed`, `moves` too: float64 records of `i, t, lat, lon, speedKmh, headingDeg`
 * (`movesRecordFields` in api/src/live/live-protocol.ts; NaN for null) of vehicles that only moved,
 * `i` being the index a row of the vehicle gave.
 */
export interface FleetDelta {
  base: number;
  rows: FleetDeltaRow[];
  moves?: ArrayBuffer;
}

/** Float64 values per `moves` record (`movesRecordFields.length` in api/src/live/live-protocol.ts). */
export const movesRecordLength = 6;

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
  /** Each pack's legal time zone from the server's rules configuration (older servers omit it). */
  packTimeZones?: Partial<Record<Pack, string>>;
}

export const violationStatuses = ['open', 'confirmed', 'dismissed', 'notified'] as const;
export type ViolationStatus = (typeof violationStatuses)[number];
export const violationConfidences = ['confirmed', 'suspected'] as const;
export type ViolationConfidence = (typeof violationConfidences)[number];
/** `reopen` takes a dismissed violation back to open, with a reason (api/src/violations/README.md). */
export type ReviewDecision = 'confirm' | 'dismiss' | 'notify' | 'reopen';

/** The stop, stand, zone or route a violation happened at, as named by the rule that raised it. */
export interface ViolationPlace {
  /** `stop`, `stand`, `zone`, `route`, ...: rules may name further kinds. */
  kind: string;
  id: string;
  name: string;
}

/**
 * A rule's penalty as configured for its pack: `group` for the DF and Belém schedules, `units` of
 * `unit` (ORTN, UPDF, IPCA-E ...) and their value in BRL where the unit value is configured.
 */
export interface Penalty {
  group?: string;
  units?: number;
  unit?: string;
  amountBrl?: number;
  /** SP Art. 28-A: the vehicle is also apprehended. */
  apprehension?: boolean;
  /** What this violation triggers beyond the fine (cancellation proceedings, doubled fine ...). */
  escalation?: unknown;
  [extra: string]: unknown;
}

/** Earlier violations of the same kind within the pack's window (SP Art. 27, DF Art. 53, Belém). */
export interface Recidivism {
  count?: number;
  windowDays?: number;
  [extra: string]: unknown;
}

/** Fields common to a `GET /v1/violations` item and a `violation` push. Instants are ISO 8601 UTC. */
export interface ViolationFields {
  id: string;
  ruleId: string;
  pack: Pack;
  legalBasis: string[];
  /** Portuguese: the wording an auto de infração carries. */
  description: string;
  descriptionEn: string;
  vehicleId: string;
  plate: string | null;
  operatorId: string | null;
  driverId: string | null;
  startedAt: string;
  /** Null while the event is still going on. */
  endedAt: string | null;
  detectedAt: string;
  lat: number | null;
  lon: number | null;
  place: ViolationPlace | null;
  confidence: ViolationConfidence;
  /** The values that made the rule fire; free-form per rule (distances, dwell seconds, counts ...). */
  measured: Record<string, unknown>;
  penalty: Penalty;
  recidivism: Recidivism;
  status: ViolationStatus;
}

/** Socket.IO `/live`, event `violation`: one object per event. */
export interface LiveViolation extends ViolationFields {
  /** `raised` the first time, `updated` as the event grows or is reviewed. */
  change: 'raised' | 'updated';
}

/** An item of `GET /v1/violations` (and the body `POST /v1/violations/:id/review` answers with). */
export interface ViolationItem extends ViolationFields {
  updatedAt?: string;
  evidenceFrom?: string;
  evidenceTo?: string;
}

/** One telemetry row of the evidence trace; every reading may be missing on a given device. */
export interface EvidenceSample {
  ts: string;
  lat: number;
  lon: number;
  speedKmh: number | null;
  headingDeg: number | null;
  ignition: boolean | null;
  doorOpen: boolean | null;
  passengers: number | null;
  boardings: number | null;
  alightings: number | null;
  meterState: MeterState | null;
  tariff: Tariff | null;
  fareCents: number | null;
  tripId: string | null;
  tachoSpeedKmh: number | null;
  driverId: string | null;
}

export interface ViolationReview {
  decision: ReviewDecision;
  reason: string;
  /** The reviewer's user id (`admin` for the admin token). */
  reviewer: string;
  /** The reviewer's name from the registry; null for the admin token (no user) or a removed user. */
  reviewerName: string | null;
  fromStatus: ViolationStatus;
  toStatus: ViolationStatus;
  at: string;
}

/** `GET /v1/violations/:id`. */
export interface ViolationDetail extends ViolationItem {
  evidence: {
    trace: LineString;
    samples: EvidenceSample[];
    measured: Record<string, unknown>;
    window: { from: string; to: string };
  };
  reviews: ViolationReview[];
}

/** The filters of `GET /v1/violations` and its CSV export that the feed offers; absent = any. */
export interface ViolationFilters {
  pack?: Pack;
  status?: ViolationStatus;
  confidence?: ViolationConfidence;
}

/** `GET /v1/stops/:id` (a regular-service stop, from GTFS). */
export interface StopItem {
  id: string;
  name: string;
  lat: number;
  lon: number;
}

/** `GET /v1/stands/:id`: a taxi stand (ponto), a polygon or a point with a radius. */
export interface StandItem {
  id: string;
  name: string;
  geometry: Point | Polygon;
  radiusM?: number | null;
  places?: number;
  kind?: 'fixo' | 'livre';
}

/** `GET /v1/zones/:id`: airport, unpaved roads, signed Bandeira II area, speed limit ... */
export interface ZoneItem {
  id: string;
  name: string;
  kind?: string;
  geometry: Polygon | MultiPolygon;
}

/** `GET /v1/contracts/:id`: a charter contract and its declared itinerary. */
export interface ContractItem {
  id: string;
  route: LineString;
}
