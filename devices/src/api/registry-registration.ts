import type { Logger } from '@vigia/core';
import { z } from 'zod';
import type { DeviceRecord, DispatcherRecord, OperatorRecord, Roster } from '../fleet/roster.js';
import { standRecords } from '../precision/registry.js';
import { demoReferenceBodies } from '../reference/demo-reference-data.js';
import { charterContractBodies } from './charter-contracts.js';
import { HttpError, httpErrorFrom, joinUrl, requestJson } from './http.js';

const createdSchema = z.looseObject({ id: z.string() });
const createdDeviceSchema = z.looseObject({ id: z.string(), token: z.string().min(1) });
const tokenSchema = z.looseObject({ token: z.string().min(1) });

/** The simulated charter contracts are in force from this date (São Paulo time). */
const CONTRACTS_VALID_FROM = '2024-01-01';

/** Requests in flight at once while registering one by one. */
const CONCURRENCY = 8;

export interface RegistryApi {
  apiUrl: string;
  adminToken: string;
  log: Logger;
  signal?: AbortSignal;
}

type Collection = 'operators' | 'drivers' | 'vehicles' | 'contracts' | 'stands';

/**
 * Registers the roster (and its charter contracts) through the API and returns each device's
 * token, keyed by device id.
 * Idempotent, so a restart re-uses what exists: each collection is first created in one request
 * (the fast path on a fresh registry); when that answers 409 — something already exists, and an
 * array request creates nothing then — records are created one at a time and a 409 is checked
 * with a GET to be the same record. A device's token is shown only when the device is created,
 * so an existing device gets a fresh one by rotation.
 */
export async function registerRoster(api: RegistryApi, roster: Roster): Promise<Map<string, string>> {
  const vehicles = roster.entries.map((e) => e.vehicle);
  const drivers = roster.entries.flatMap((e) => e.drivers);
  const devices = roster.entries.map((e) => e.device);

  const operators = await ensureAll(api, 'operators', roster.operators);
  await refreshRadioDeclarations(api, roster.operators);
  const driverCount = await ensureAll(api, 'drivers', drivers);
  const vehicleCount = await ensureAll(api, 'vehicles', vehicles);
  // The charter buses' written contracts (SP Art. 10), in force since well before the run.
  const contractCount = await ensureAll(api, 'contracts', charterContractBodies(roster, CONTRACTS_VALID_FROM));
  // The stands the simulated taxis queue at, so the booking service offers a booking near one to
  // the head of its queue first and the dispatch console shows the queues.
  const standCount = await ensureAll(api, 'stands', standBodies(roster));
  const tokens = await ensureDevices(api, devices);
  api.log.info(
    {
      operators,
      drivers: driverCount,
      vehicles: vehicleCount,
      contracts: contractCount,
      stands: standCount,
      devices: tokens.size,
    },
    'simulated fleet registered',
  );
  return tokens;
}

/** The stands of the road networks of the roster's taxi cities, as the municipality registers them (POST /v1/stands). */
function standBodies(roster: Roster) {
  const packs = new Set(roster.entries.map((e) => e.vehicle.pack));
  return (['df-taxi', 'belem-taxi'] as const)
    .filter((pack) => packs.has(pack))
    .flatMap((pack) => standRecords(pack).map(({ validFrom: _inForce, ...stand }) => stand));
}

/**
 * The demo's reference data (reference/demo-reference-data.ts: unit values, holidays, zones,
 * regular-service stops), registered only when the simulator runs as the embedded demo. What the
 * registry already holds wins: a record whose id (or, for a unit value, unit and date) exists is
 * left as it is, so a value a regulator registered is never replaced by a demo placeholder.
 */
export async function registerDemoReferenceData(api: RegistryApi): Promise<void> {
  const counts: Record<string, { created: number; kept: number }> = {};
  for (const [collection, records] of Object.entries(demoReferenceBodies())) {
    counts[collection] = await ensureKept(api, collection, records);
  }
  api.log.info(counts, 'demo reference data registered');
}

/** Creates what is missing; a 409 (the record, or one in its place, exists) keeps the existing one. */
async function ensureKept(api: RegistryApi, collection: string, records: readonly { id: string }[]) {
  if (records.length === 0) return { created: 0, kept: 0 };
  const batch = await post(api, `/v1/${collection}`, records);
  if (batch.status === 201 || batch.status === 200) return { created: records.length, kept: 0 };
  if (batch.status !== 409) throw httpErrorFrom(batch, `Creating ${collection}`);
  let created = 0;
  await inParallel(records, CONCURRENCY, async (record) => {
    const res = await post(api, `/v1/${collection}`, record);
    if (res.status === 201 || res.status === 200) created++;
    else if (res.status !== 409) throw httpErrorFrom(res, `Creating ${collection} ${record.id}`);
  });
  return { created, kept: records.length - created };
}

/**
 * A radio operator registered by an earlier run declared the fleet of that run, and its credential
 * ran from that run's date: declare this roster's taxis and renew the credential, or a dispatch to
 * a taxi added since would be unlawful (BEL_UNAUTHORIZED_RADIO). A PATCH of the same values is harmless.
 */
async function refreshRadioDeclarations(api: RegistryApi, operators: readonly OperatorRecord[]): Promise<void> {
  for (const o of operators) {
    if (o.kind !== 'radio-operator') continue;
    const res = await requestJson(joinUrl(api.apiUrl, `/v1/operators/${encodeURIComponent(o.id)}`), {
      method: 'PATCH',
      token: api.adminToken,
      body: { declaredVehicleIds: o.declaredVehicleIds ?? [], credentialValidUntil: o.credentialValidUntil ?? null },
      signal: api.signal,
    });
    if (res.status !== 200) throw httpErrorFrom(res, `Declaring the vehicles of radio operator ${o.id}`);
  }
}

/**
 * Registers the roster's dispatcher users (admin only) and returns each one's API token, keyed by
 * user id; an existing user gets a fresh token by rotation, as devices do.
 */
export async function registerDispatchers(
  api: RegistryApi,
  dispatchers: readonly DispatcherRecord[],
): Promise<Map<string, string>> {
  const tokens = new Map<string, string>();
  await inParallel(dispatchers, CONCURRENCY, async (user) => {
    const res = await post(api, '/v1/users', user);
    if (res.status === 201 || res.status === 200) {
      tokens.set(user.id, createdDeviceSchema.parse(res.body).token);
      return;
    }
    if (res.status !== 409) throw httpErrorFrom(res, `Creating user ${user.id}`);
    // An earlier run's user: scope it as this roster says, then a new token.
    const patched = await requestJson(joinUrl(api.apiUrl, `/v1/users/${encodeURIComponent(user.id)}`), {
      method: 'PATCH',
      token: api.adminToken,
      body: { name: user.name, role: user.role, operatorIds: user.operatorIds },
      signal: api.signal,
    });
    if (patched.status !== 200) throw httpErrorFrom(patched, `Updating user ${user.id}`);
    const rotated = await post(api, `/v1/users/${encodeURIComponent(user.id)}/token`, {});
    if (rotated.status !== 200 && rotated.status !== 201)
      throw httpErrorFrom(rotated, `Rotating the token of user ${user.id}`);
    tokens.set(user.id, tokenSchema.parse(rotated.body).token);
  });
  api.log.info({ dispatchers: tokens.size }, 'simulated dispatchers registered');
  return tokens;
}

async function post(api: RegistryApi, path: string, body: unknown) {
  return requestJson(joinUrl(api.apiUrl, path), { method: 'POST', token: api.adminToken, body, signal: api.signal });
}

async function ensureAll<T extends { id: string }>(api: RegistryApi, collection: Collection, records: readonly T[]) {
  if (records.length === 0) return 0;
  const batch = await post(api, `/v1/${collection}`, records);
  if (batch.status === 201 || batch.status === 200) {
    z.array(createdSchema).length(records.length).parse(batch.body);
    return records.length;
  }
  if (batch.status !== 409) throw httpErrorFrom(batch, `Creating ${collection}`);
  await inParallel(records, CONCURRENCY, (record) => ensureOne(api, collection, record));
  return records.length;
}

async function ensureOne(api: RegistryApi, collection: Collection, record: { id: string }): Promise<void> {
  const res = await post(api, `/v1/${collection}`, record);
  if (res.status === 201 || res.status === 200) {
    createdSchema.parse(res.body);
    return;
  }
  if (res.status !== 409) throw httpErrorFrom(res, `Creating ${collection} ${record.id}`);
  // 409 may also mean a clash on another unique field (a plate already in use by another vehicle).
  const existing = await requestJson(joinUrl(api.apiUrl, `/v1/${collection}/${encodeURIComponent(record.id)}`), {
    method: 'GET',
    token: api.adminToken,
    signal: api.signal,
  });
  if (existing.status !== 200) {
    const conflict = httpErrorFrom(res, `Creating ${collection} ${record.id}`);
    throw new HttpError(409, conflict.code, `${conflict.message} (and no ${collection} record with that id exists)`);
  }
  createdSchema.parse(existing.body);
}

async function ensureDevices(api: RegistryApi, devices: readonly DeviceRecord[]): Promise<Map<string, string>> {
  const tokens = new Map<string, string>();
  if (devices.length === 0) return tokens;
  const batch = await post(api, '/v1/devices', devices);
  if (batch.status === 201 || batch.status === 200) {
    for (const d of z.array(createdDeviceSchema).length(devices.length).parse(batch.body)) tokens.set(d.id, d.token);
    return tokens;
  }
  if (batch.status !== 409) throw httpErrorFrom(batch, 'Creating devices');
  await inParallel(devices, CONCURRENCY, async (device) => {
    const res = await post(api, '/v1/devices', device);
    if (res.status === 201 || res.status === 200) {
      tokens.set(device.id, createdDeviceSchema.parse(res.body).token);
    } else if (res.status === 409) {
      tokens.set(device.id, await rotateDeviceToken(api, device.id));
    } else {
      throw httpErrorFrom(res, `Creating device ${device.id}`);
    }
  });
  return tokens;
}

/** A new token for an existing device; the old one stops working. */
export async function rotateDeviceToken(api: RegistryApi, deviceId: string): Promise<string> {
  const res = await post(api, `/v1/devices/${encodeURIComponent(deviceId)}/token`, {});
  if (res.status !== 200 && res.status !== 201) throw httpErrorFrom(res, `Rotating the token of device ${deviceId}`);
  return tokenSchema.parse(res.body).token;
}

async function inParallel<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
