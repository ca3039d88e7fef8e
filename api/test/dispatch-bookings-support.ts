import type { Booking } from '@vigia/core';
import { api, registerVehicle, waitFor } from './support.js';

/**
 * What the booking tests share: taxis registered with a device each, positioned by real telemetry
 * (`POST /v1/telemetry` with the device's token), and bookings read back over HTTP.
 */

export interface Sys {
  url: string;
  adminToken: string;
}

export interface Taxi {
  vehicleId: string;
  deviceId: string;
  identifier: string;
  token: string;
}

export interface ErrorBody {
  error: { code: string; message: string; details?: unknown };
}

/** The pickup of the Brasília tests (Esplanada) and of the Belém ones (Estação das Docas). */
export const BSB = { lat: -15.7942, lon: -47.8822 };
export const BEL = { lat: -1.4521, lon: -48.5034 };

/** `metres` north of `p` (1° of latitude ≈ 111 195 m). */
export const north = (p: { lat: number; lon: number }, metres: number) => ({
  lat: p.lat + metres / 111_195,
  lon: p.lon,
});

export const since = () => new Date(Date.now() - 86_400_000).toISOString();

export async function must<T = { id: string }>(sys: Sys, method: string, path: string, body?: unknown): Promise<T> {
  const res = await api<T>(sys, method, path, body);
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Who a booking test acts as besides admin: a dispatcher of `coop`, one of `other` only, a regulator. */
export interface Desks {
  dispatcher: string;
  otherDispatcher: string;
  regulator: string;
}

/**
 * Two DF cooperatives, `coop` and `other`, with a dispatcher of each and a regulator (named after
 * `run`): the callers the booking routes' scope checks tell apart.
 */
export async function twoCooperatives(sys: Sys, run: string, coop: string, other: string): Promise<Desks> {
  await must(sys, 'POST', '/v1/operators', [
    { id: coop, name: 'Cooperativa', pack: 'df-taxi', kind: 'cooperative', validFrom: since() },
    { id: other, name: 'Outra Cooperativa', pack: 'df-taxi', kind: 'cooperative', validFrom: since() },
  ]);
  const user = async (role: string, operatorIds: string[]) =>
    (await must<{ token: string }>(sys, 'POST', '/v1/users', { name: `${role} ${run}`, role, operatorIds })).token;
  return {
    dispatcher: await user('dispatcher', [coop]),
    otherDispatcher: await user('dispatcher', [other]),
    regulator: await user('regulator', []),
  };
}

/** A DF fixed stand (`fixo`, 4 places, 30 m around `at`) whose permit holders are `holderVehicleIds`. */
export function fixedStand(sys: Sys, name: string, at: { lat: number; lon: number }, holderVehicleIds: string[]) {
  return must(sys, 'POST', '/v1/stands', {
    pack: 'df-taxi',
    name,
    geometry: { type: 'Point', coordinates: [at.lon, at.lat] },
    radiusM: 30,
    places: 4,
    kind: 'fixo',
    holderVehicleIds,
    validFrom: since(),
  });
}

/** A taxi of `pack` registered to the existing `operatorId` (documents in order unless `fields` say otherwise), with a device. */
export async function taxi(
  sys: Sys,
  pack: 'df-taxi' | 'belem-taxi',
  operatorId: string,
  fields: Record<string, unknown> = {},
): Promise<Taxi> {
  const { vehicleId, deviceId, identifier, token } = await registerVehicle(sys, { pack, operatorId, vehicle: fields });
  return { vehicleId, deviceId, identifier, token };
}

/** One position of the taxi, sent by its own device; `agoS` back in time, meter `free` unless said. */
export async function report(
  sys: Sys,
  t: Taxi,
  at: { lat: number; lon: number },
  opts: { meter?: 'free' | 'hired' | 'stopped' | 'off'; agoS?: number } = {},
): Promise<void> {
  const res = await api(
    sys,
    'POST',
    '/v1/telemetry',
    {
      deviceId: t.identifier,
      ts: new Date(Date.now() - (opts.agoS ?? 0) * 1000).toISOString(),
      lat: at.lat,
      lon: at.lon,
      speedKmh: 0,
      meter: { state: opts.meter ?? 'free', tariff: 1 },
    },
    t.token,
  );
  if (res.status !== 200) throw new Error(`telemetry: ${res.status} ${JSON.stringify(res.body)}`);
}

export async function booking(sys: Sys, id: string, token = sys.adminToken): Promise<Booking> {
  const res = await api<Booking>(sys, 'GET', `/v1/bookings/${id}`, undefined, token);
  if (res.status !== 200) throw new Error(`booking: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/**
 * Waits until the booking satisfies `test`, and returns it. The default wait is generous: offers
 * move on dispatch rounds, which a machine whose two cores are shared with other work may delay.
 * It is a wait, never a speed bound.
 */
export function bookingWhen(sys: Sys, id: string, what: string, test: (b: Booking) => boolean, timeoutMs = 30_000) {
  return waitFor(
    what,
    async () => {
      const b = await booking(sys, id);
      return test(b) ? b : undefined;
    },
    timeoutMs,
  );
}

/** The booking's `n`-th offer (1 = the first), once it is made and open. */
export async function openOffer(sys: Sys, id: string, n: number, timeoutMs?: number) {
  const b = await bookingWhen(
    sys,
    id,
    `offer ${n} open`,
    (x) => x.offers.length >= n && x.offers[n - 1]?.response === null,
    timeoutMs,
  );
  const offer = b.offers[n - 1];
  if (!offer) throw new Error('no open offer');
  return offer;
}
