/**
 * The k6 side of talking to Vigia: JSON requests with a bearer token, the answers read into the
 * shapes the shared scenarios judge (k6 has no zod: plain checks of the parts read), and the
 * registration every scenario starts with.
 */
import { fail } from 'k6';
import http, { type RefinedResponse, type ResponseType } from 'k6/http';
import type { BookingSeen } from '../../src/scenarios/dispatch.ts';
import {
  deviceBodies,
  type FleetPlan,
  type ListedVehicle,
  operatorBody,
  parkedSample,
  REGISTER_CHUNK,
  vehicleBodies,
  vehiclesPath,
  WARM_UP_CONCURRENCY,
} from '../../src/scenarios/fleet.ts';
import { ingestAnswerCorrect, type TelemetryAnswer } from '../../src/scenarios/ingest.ts';
import type { FleetUpdateSeen } from '../../src/scenarios/live.ts';

type Json = Record<string, unknown>;
const isObject = (x: unknown): x is Json => typeof x === 'object' && x !== null && !Array.isArray(x);
const isString = (x: unknown): x is string => typeof x === 'string';

/**
 * Headers of a call with `token`; `name` tags the request in k6's metrics, so `/v1/bookings/:id`
 * is one series rather than one per booking.
 */
export const params = (token: string, name: string) => ({
  headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
  tags: { name },
});

/** The body as JSON, or undefined when it is not JSON (an HTML error page, nothing). */
export function jsonOf(res: RefinedResponse<ResponseType | undefined>): unknown {
  if (typeof res.body !== 'string' || res.body === '') return undefined;
  try {
    return JSON.parse(res.body);
  } catch {
    return undefined;
  }
}

export function asTelemetryAnswer(x: unknown): TelemetryAnswer | undefined {
  if (!isObject(x) || typeof x.accepted !== 'number' || typeof x.duplicates !== 'number') return undefined;
  if (!Array.isArray(x.rejected)) return undefined;
  const rejected = x.rejected.filter(isObject).map((r) => ({
    index: Number(r.index),
    code: String(r.code),
    message: String(r.message),
  }));
  return { accepted: x.accepted, duplicates: x.duplicates, rejected };
}

export function asBooking(x: unknown): BookingSeen | undefined {
  if (!isObject(x) || !isString(x.id) || !isString(x.operatorId) || !isString(x.status)) return undefined;
  if (!Array.isArray(x.offers)) return undefined;
  const offers: BookingSeen['offers'] = [];
  for (const o of x.offers) {
    if (!isObject(o) || !isString(o.id) || !isString(o.vehicleId)) return undefined;
    offers.push({ id: o.id, vehicleId: o.vehicleId, response: isString(o.response) ? o.response : null });
  }
  return {
    id: x.id,
    operatorId: x.operatorId,
    status: x.status,
    vehicleId: isString(x.vehicleId) ? x.vehicleId : null,
    offers,
  };
}

/** The answer to an offer (`POST /v1/offers/:id/accept`): the offer as it now is. */
export function asOfferAnswer(x: unknown): { response: string | null } | undefined {
  if (!isObject(x) || !isString(x.id)) return undefined;
  return { response: isString(x.response) ? x.response : null };
}

/** A `fleet` event's argument: the updates, of which only `vehicleId` and `ts` are read. */
export function asFleetUpdates(x: unknown): FleetUpdateSeen[] | undefined {
  if (!Array.isArray(x)) return undefined;
  const out: FleetUpdateSeen[] = [];
  for (const u of x)
    if (isObject(u) && isString(u.vehicleId) && isString(u.ts)) out.push({ vehicleId: u.vehicleId, ts: u.ts });
  return out;
}

function mustCreate(res: RefinedResponse<ResponseType | undefined>, what: string): unknown {
  if (res.status !== 201) fail(`${what}: ${res.status} ${String(res.body).slice(0, 300)}`);
  return jsonOf(res);
}

/**
 * Registers the plan's operator, vehicles and devices; returns each vehicle's device token, in
 * the plan's order (the token is shown only in the answer that creates the device).
 */
export function registerFleet(apiUrl: string, token: string, plan: FleetPlan, nowMs: number): string[] {
  mustCreate(
    http.post(`${apiUrl}/v1/operators`, JSON.stringify(operatorBody(plan, nowMs)), params(token, 'POST /v1/operators')),
    'operator',
  );
  const tokens: string[] = [];
  for (let from = 0; from < plan.vehicles.length; from += REGISTER_CHUNK) {
    const to = from + REGISTER_CHUNK;
    mustCreate(
      http.post(
        `${apiUrl}/v1/vehicles`,
        JSON.stringify(vehicleBodies(plan, nowMs, from, to)),
        params(token, 'POST /v1/vehicles'),
      ),
      'vehicles',
    );
    const devices = mustCreate(
      http.post(
        `${apiUrl}/v1/devices`,
        JSON.stringify(deviceBodies(plan, from, to)),
        params(token, 'POST /v1/devices'),
      ),
      'devices',
    );
    if (!Array.isArray(devices)) fail('devices: the answer is not a list');
    for (const d of devices) {
      if (!isObject(d) || !isString(d.token)) fail('devices: a created device without its token');
      tokens.push(d.token);
    }
  }
  return tokens;
}

/** Every vehicle of the plan as `GET /v1/vehicles?operatorId=` lists it, page after page. */
export function listVehicles(apiUrl: string, token: string, plan: FleetPlan): ListedVehicle[] {
  const out: ListedVehicle[] = [];
  let cursor: string | null = null;
  do {
    const res = http.get(`${apiUrl}${vehiclesPath(plan, cursor)}`, params(token, 'GET /v1/vehicles'));
    const page = jsonOf(res);
    if (res.status !== 200 || !isObject(page) || !Array.isArray(page.items)) fail(`vehicles: ${res.status}`);
    for (const v of page.items) {
      if (!isObject(v) || !isString(v.id)) continue;
      const live = isObject(v.live) && isString(v.live.ts) ? { ts: v.live.ts, online: v.live.online === true } : null;
      out.push({ id: v.id, live });
    }
    cursor = isString(page.next) ? page.next : null;
  } while (cursor);
  return out;
}

/** Each device's first sample, parked at home at `tsMs`, with its own token (`WARM_UP_CONCURRENCY` at once). */
export function warmUp(ingestUrl: string, plan: FleetPlan, tokens: readonly string[], tsMs: number): void {
  for (let from = 0; from < plan.vehicles.length; from += WARM_UP_CONCURRENCY) {
    const indexes = plan.vehicles.slice(from, from + WARM_UP_CONCURRENCY).map((_, k) => from + k);
    const responses = http.batch(
      indexes.map((i) => ({
        method: 'POST',
        url: `${ingestUrl}/v1/telemetry`,
        body: JSON.stringify(parkedSample(plan, i, tsMs)),
        params: params(tokens[i] ?? '', 'POST /v1/telemetry (warm-up)'),
      })),
    );
    for (const res of responses) {
      if (!ingestAnswerCorrect(res.status, asTelemetryAnswer(jsonOf(res)), 1)) {
        fail(`warm-up sample refused: ${res.status} ${String(res.body).slice(0, 200)}`);
      }
    }
  }
}
