/**
 * What a scenario registers before it sends anything: one DF taxi cooperative of its own, its
 * vehicles (documents in order, so the live rules have nothing to say about the registry) and one
 * native device per vehicle. Everything is named after the run, so runs against the same
 * deployment never meet and a run's records can be found afterwards.
 *
 * Plain TypeScript with no imports: k6 and Node both load this file.
 */

export type ScenarioName = 'ingest' | 'live' | 'dispatch';
export const SCENARIOS: readonly ScenarioName[] = ['ingest', 'live', 'dispatch'];

/** Esplanada dos Ministérios, Brasília: every scenario's fleet drives around it. */
export const ESPLANADA = { lat: -15.7942, lon: -47.8822 } as const;

export interface VehiclePlan {
  vehicleId: string;
  deviceId: string;
  /** What the device sends as `deviceId`. */
  identifier: string;
  plate: string;
}

export interface FleetPlan {
  scenario: ScenarioName;
  runTag: string;
  operatorId: string;
  vehicles: VehiclePlan[];
}

/**
 * A run's tag: the start time in base 36 and a random suffix, so two runners started in the same
 * millisecond still differ. Ids allow `[A-Za-z0-9._:-]`.
 */
export function newRunTag(nowMs: number, random: () => number): string {
  return `${nowMs.toString(36)}${Math.floor(random() * 36 ** 3)
    .toString(36)
    .padStart(3, '0')}`;
}

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const ALNUM = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';
/** Mercosul plates (`LLLNLNN`, the registry's `[A-Z]{3}[0-9][A-Z0-9][0-9]{2}`) per letter prefix. */
export const PLATES_PER_PREFIX = 10 * 36 * 100;

/**
 * The `index`-th plate under a three-letter prefix (`prefix` 0 … 26³−1). Plates are unique among
 * current vehicles, so each scenario of a run takes a random prefix: two runs share one with
 * probability 1 in 17 576.
 */
export function plateOf(prefix: number, index: number): string {
  const p = Math.floor(prefix) % 26 ** 3;
  const letters = `${LETTERS[Math.floor(p / 676)]}${LETTERS[Math.floor(p / 26) % 26]}${LETTERS[p % 26]}`;
  const i = index % PLATES_PER_PREFIX;
  return `${letters}${i % 10}${ALNUM[Math.floor(i / 10) % 36]}${String(Math.floor(i / 360)).padStart(2, '0')}`;
}

export function planFleet(scenario: ScenarioName, runTag: string, count: number, platePrefix: number): FleetPlan {
  if (count > PLATES_PER_PREFIX) throw new Error(`at most ${PLATES_PER_PREFIX} vehicles per scenario`);
  const base = `load-${runTag}-${scenario}`;
  return {
    scenario,
    runTag,
    operatorId: base,
    vehicles: Array.from({ length: count }, (_, i) => ({
      vehicleId: `${base}-v${i}`,
      deviceId: `${base}-d${i}`,
      identifier: `${base}-${i}`,
      plate: plateOf(platePrefix, i),
    })),
  };
}

/**
 * Registry records take effect from `validFrom`: an hour back, so a load generator whose clock is
 * a little behind the server's never sends a sample from before its vehicle existed.
 */
const validFrom = (nowMs: number) => new Date(nowMs - 3_600_000).toISOString();
const day = (nowMs: number, offsetDays: number) => new Date(nowMs + offsetDays * 86_400_000).toISOString().slice(0, 10);

/** `POST /v1/operators`. */
export function operatorBody(plan: FleetPlan, nowMs: number) {
  return {
    id: plan.operatorId,
    name: `Load ${plan.scenario} ${plan.runTag}`,
    pack: 'df-taxi',
    kind: 'cooperative',
    validFrom: validFrom(nowMs),
  };
}

/** `POST /v1/vehicles` (an array creates many): taxis in order, permit and inspection current. */
export function vehicleBodies(plan: FleetPlan, nowMs: number, from = 0, to = plan.vehicles.length) {
  const year = new Date(nowMs).getUTCFullYear();
  return plan.vehicles.slice(from, to).map((v) => ({
    id: v.vehicleId,
    plate: v.plate,
    pack: 'df-taxi',
    serviceType: 'taxi',
    capacity: 4,
    manufactureYear: year - 2,
    operatorId: plan.operatorId,
    permitNumber: `P-${v.vehicleId}`,
    permitValidUntil: day(nowMs, 300),
    lastInspectionDate: day(nowMs, -30),
    validFrom: validFrom(nowMs),
  }));
}

/** `POST /v1/devices`: each answer carries the device's token, shown only then. */
export function deviceBodies(plan: FleetPlan, from = 0, to = plan.vehicles.length) {
  return plan.vehicles.slice(from, to).map((v) => ({
    id: v.deviceId,
    vehicleId: v.vehicleId,
    protocol: 'native',
    identifier: v.identifier,
  }));
}

/** Registry writes per request: the registry takes far more, but one huge body would time out a slow deployment. */
export const REGISTER_CHUNK = 500;

/** Where vehicle `i` of a fleet starts: a grid of 20 × 20 cells 200 m apart around the Esplanada. */
export function homeOf(i: number): { lat: number; lon: number } {
  return {
    lat: ESPLANADA.lat + ((i % 20) - 10) * 0.0018,
    lon: ESPLANADA.lon + ((Math.floor(i / 20) % 20) - 10) * 0.0019,
  };
}

/** One record as `POST /v1/telemetry` takes it (API.md "Telemetry in"), the fields the scenarios send. */
export interface TelemetryRecord {
  deviceId: string;
  ts: string;
  lat: number;
  lon: number;
  speedKmh: number;
  headingDeg: number;
  ignition: boolean;
  passengers: number;
  meter: { state: 'free' | 'hired'; tariff: 1 };
}

/** Vehicle `index` standing free at home at `tsMs`: the warm-up sample, and a taxi waiting for a booking. */
export function parkedSample(plan: FleetPlan, index: number, tsMs: number): TelemetryRecord {
  const vehicle = plan.vehicles[index];
  if (!vehicle) throw new Error(`no vehicle ${index}`);
  const home = homeOf(index);
  return {
    deviceId: vehicle.identifier,
    ts: new Date(tsMs).toISOString(),
    lat: home.lat,
    lon: home.lon,
    speedKmh: 0,
    headingDeg: 0,
    ignition: true,
    passengers: 0,
    meter: { state: 'free', tariff: 1 },
  };
}

/**
 * Before the measured phase every device sends one sample with its own token: a running fleet's
 * devices are known to the ingest's caches and the rules already hold their vehicles, and a run of
 * seconds would otherwise measure little but those first contacts. Requests in flight at once.
 */
export const WARM_UP_CONCURRENCY = 8;

/** A page of `GET /v1/vehicles?operatorId=`: the most the registry answers at once. */
export const VEHICLE_PAGE = 1000;
export const vehiclesPath = (plan: FleetPlan, cursor: string | null) =>
  `/v1/vehicles?operatorId=${encodeURIComponent(plan.operatorId)}&limit=${VEHICLE_PAGE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;

/** One vehicle as `GET /v1/vehicles` lists it, the part the scenarios read. */
export interface ListedVehicle {
  id: string;
  live: { ts: string; online: boolean } | null;
}
