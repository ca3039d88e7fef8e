import type { ApiClient } from '../api-client.js';
import type { MeterState, Pack, Tariff } from '../api-types.js';

/**
 * The history routes' answers (api/src/history/README.md) as the replay uses them: every sample of
 * a track flattened into one time-ordered list, each knowing its line, so a position at any instant
 * is an interpolation within a line and never across a gap.
 */

/** One sample of a track. */
export interface TrackPoint {
  t: number;
  lon: number;
  lat: number;
  speedKmh: number | null;
  meterState: MeterState | null;
  tariff: Tariff | null;
  passengers: number | null;
  /** Index of the line (stretch between gaps) it belongs to. */
  line: number;
}

export interface TrackViolation {
  id: string;
  ruleId: string;
  description: string;
  startedAt: number;
  endedAt: number | null;
}

export interface TrackHour {
  start: string;
  distanceM: number;
  hiredS: number;
  /** Time covered by samples; null where the database's aggregate does not keep it. */
  observedS: number | null;
}

export interface VehicleTrack {
  vehicle: { id: string; plate: string; pack: Pack };
  from: number;
  to: number;
  stepS: number | null;
  lines: number;
  points: TrackPoint[];
  violations: TrackViolation[];
  hours: TrackHour[] | null;
}

/** One vehicle of an area replay: parallel arrays, time-ordered. */
export interface AreaVehicle {
  id: string;
  plate: string;
  pack: Pack;
  t: number[];
  lat: number[];
  lon: number[];
  meterState: (MeterState | null)[];
}

export interface AreaReplay {
  from: number;
  to: number;
  vehicles: AreaVehicle[];
}

/** Above this period the dashboard asks the server to thin the track (about 5,000 points a day). */
const thinAboveMs = 6 * 3_600_000;

/** The answer did not have the documented shape: said plainly rather than drawn wrong. */
class UnexpectedAnswer extends Error {}

function check(condition: boolean, what: string): asserts condition {
  if (!condition) throw new UnexpectedAnswer(`unexpected answer (${what})`);
}

const isArray = (value: unknown): value is unknown[] => Array.isArray(value);
const numberOrNull = (value: unknown): number | null => (typeof value === 'number' ? value : null);

interface RawFeature {
  geometry: { type: string; coordinates: unknown };
  properties: Record<string, unknown>;
}

function pointsOf(feature: RawFeature, line: number): TrackPoint[] {
  const { geometry, properties } = feature;
  const coordinates = (geometry.type === 'Point' ? [geometry.coordinates] : geometry.coordinates) as unknown;
  const times = properties.times;
  check(isArray(coordinates) && isArray(times) && coordinates.length === times.length, 'track feature');
  const speeds = isArray(properties.speedsKmh) ? properties.speedsKmh : [];
  const states = isArray(properties.meterStates) ? properties.meterStates : [];
  const tariffs = isArray(properties.tariffs) ? properties.tariffs : [];
  const passengers = isArray(properties.passengers) ? properties.passengers : [];
  return coordinates.map((position, i) => {
    check(isArray(position) && typeof position[0] === 'number' && typeof position[1] === 'number', 'position');
    const tariff = tariffs[i];
    return {
      t: Date.parse(String(times[i])),
      lon: position[0],
      lat: position[1],
      speedKmh: numberOrNull(speeds[i]),
      meterState: (typeof states[i] === 'string' ? states[i] : null) as MeterState | null,
      tariff: tariff === 1 || tariff === 2 ? tariff : null,
      passengers: numberOrNull(passengers[i]),
      line,
    };
  });
}

/** Reads `GET /v1/vehicles/:id/track` into a `VehicleTrack`. */
export function toVehicleTrack(body: unknown): VehicleTrack {
  const raw = body as Record<string, unknown>;
  check(typeof raw === 'object' && raw !== null && isArray(raw.features), 'track');
  const vehicle = raw.vehicle as VehicleTrack['vehicle'];
  check(typeof vehicle?.id === 'string' && typeof vehicle.plate === 'string', 'track vehicle');
  const features = raw.features as RawFeature[];
  const violations = isArray(raw.violations) ? (raw.violations as Record<string, unknown>[]) : [];
  return {
    vehicle: { id: vehicle.id, plate: vehicle.plate, pack: vehicle.pack },
    from: Date.parse(String(raw.from)),
    to: Date.parse(String(raw.to)),
    stepS: numberOrNull(raw.stepS),
    lines: features.length,
    points: features.flatMap((feature, line) => pointsOf(feature, line)),
    violations: violations.map((v) => ({
      id: String(v.id),
      ruleId: String(v.ruleId),
      description: String(v.description ?? ''),
      startedAt: Date.parse(String(v.startedAt)),
      endedAt: typeof v.endedAt === 'string' ? Date.parse(v.endedAt) : null,
    })),
    hours: isArray(raw.hours) ? (raw.hours as TrackHour[]) : null,
  };
}

export async function loadTrack(client: ApiClient, vehicleId: string, from: number, to: number): Promise<VehicleTrack> {
  const query = new URLSearchParams({ from: new Date(from).toISOString(), to: new Date(to).toISOString() });
  // Over six hours, one point per (period / 5,000): the line and the chart look the same, and a day stays light.
  if (to - from > thinAboveMs) query.set('stepS', String(Math.ceil((to - from) / 5_000_000)));
  return toVehicleTrack(await client.getJson<unknown>(`/v1/vehicles/${encodeURIComponent(vehicleId)}/track?${query}`));
}

export async function loadAreaReplay(
  client: ApiClient,
  bbox: [number, number, number, number],
  from: number,
  to: number,
): Promise<AreaReplay> {
  const query = new URLSearchParams({
    bbox: bbox.map((n) => n.toFixed(5)).join(','),
    from: new Date(from).toISOString(),
    to: new Date(to).toISOString(),
  });
  const body = await client.getJson<{ from: string; to: string; vehicles: AreaVehicle[] }>(`/v1/replay?${query}`);
  check(isArray(body?.vehicles), 'replay');
  for (const v of body.vehicles)
    check(isArray(v.t) && v.t.length === v.lat.length && v.t.length === v.lon.length, 'replay vehicle');
  return { from: Date.parse(body.from), to: Date.parse(body.to), vehicles: body.vehicles };
}

/** Index of the last element of the sorted `times` at or before `t` (-1 when `t` precedes them all). */
export function indexAtOrBefore(times: ArrayLike<number>, t: number): number {
  let lo = 0;
  let hi = times.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if ((times[mid] as number) <= t) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

/**
 * Where the vehicle was at `t`: interpolated between the samples around it when both belong to
 * the same line; during a gap, at the last sample before it (`inGap`), since nobody saw the way.
 */
export function positionAt(
  points: readonly TrackPoint[],
  times: ArrayLike<number>,
  t: number,
): { lon: number; lat: number; point: TrackPoint; inGap: boolean } | null {
  const i = indexAtOrBefore(times, t);
  if (i < 0) return null;
  const a = points[i] as TrackPoint;
  const b = points[i + 1];
  if (!b) return { lon: a.lon, lat: a.lat, point: a, inGap: t > a.t };
  if (b.line !== a.line) return { lon: a.lon, lat: a.lat, point: a, inGap: true };
  const f = b.t === a.t ? 0 : (t - a.t) / (b.t - a.t);
  return { lon: a.lon + (b.lon - a.lon) * f, lat: a.lat + (b.lat - a.lat) * f, point: a, inGap: false };
}

/** A vehicle of an area replay is shown hollow once its last position is older than this. */
const areaStaleMs = 60_000;

/** Where an area replay's vehicle was at `t`, or null before its first position in the window. */
export function areaPositionAt(
  v: AreaVehicle,
  t: number,
): { lon: number; lat: number; meterState: MeterState | null; stale: boolean } | null {
  const i = indexAtOrBefore(v.t, t);
  if (i < 0) return null;
  const ta = v.t[i] as number;
  const a = { lon: v.lon[i] as number, lat: v.lat[i] as number, meterState: v.meterState[i] ?? null };
  const tb = v.t[i + 1];
  // Interpolated between two positions close in time; a vehicle that left the area or went quiet stays put.
  if (tb === undefined || tb - ta > areaStaleMs) return { ...a, stale: t - ta > areaStaleMs };
  const f = tb === ta ? 0 : (t - ta) / (tb - ta);
  return {
    lon: a.lon + ((v.lon[i + 1] as number) - a.lon) * f,
    lat: a.lat + ((v.lat[i + 1] as number) - a.lat) * f,
    meterState: a.meterState,
    stale: false,
  };
}
