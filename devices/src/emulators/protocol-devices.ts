import { z } from 'zod';
import { HttpError, httpErrorFrom, joinUrl, requestJson } from '../api/http.js';
import type { RegistryApi } from '../api/registry-registration.js';
import type { RosterEntry } from '../fleet/roster.js';
import { emulatedImei } from './teltonika/imei.js';

/** How the simulated fleet talks: the native JSON API, or one of the emulated device protocols. */
export const SIM_PROTOCOLS = ['native', 'osmand', 'teltonika'] as const;
export type SimProtocol = (typeof SIM_PROTOCOLS)[number];

/** What the registry must say about a device for the gateway to accept it and read it right. */
export interface ProtocolIdentity {
  protocol: SimProtocol;
  identifier: string;
  profile: string | null;
}

const PACK_SERIAL: Record<string, number> = { DF: 1, BEL: 2, SP: 3 };

/**
 * The identity an entry's device has under `protocol`: native and OsmAnd devices keep the
 * roster's identifier (`SIM-DF-0001`); a Teltonika tracker is known by its IMEI, one per roster
 * device (`SIM-BEL-0007` → pack 2, number 7). Profiles are the shipped ones for each vehicle kind.
 */
export function protocolIdentity(entry: RosterEntry, protocol: SimProtocol): ProtocolIdentity {
  const identifier = entry.device.identifier;
  if (protocol === 'native') return { protocol, identifier, profile: null };
  if (protocol === 'osmand') return { protocol, identifier, profile: 'osmand-traccar-client' };
  const match = /^SIM-([A-Z]+)-(\d+)$/.exec(identifier);
  const pack = match ? PACK_SERIAL[match[1] as string] : undefined;
  if (!match || pack === undefined) throw new Error(`No IMEI for device identifier '${identifier}'`);
  return {
    protocol,
    identifier: emulatedImei(pack * 1_000_000 + Number(match[2])),
    profile: entry.vehicle.pack === 'sp-fretamento' ? 'teltonika-fmc650-bus' : 'teltonika-fmc130-taxi',
  };
}

const registeredDeviceSchema = z.looseObject({
  id: z.string(),
  protocol: z.string(),
  identifier: z.string(),
  profile: z.string().nullish(),
});
const devicePageSchema = z.looseObject({ items: z.array(registeredDeviceSchema), next: z.string().nullish() });

const PAGE_SIZE = 1000;
const REQUEST_TIMEOUT_MS = 15_000;

/**
 * Brings the registry in line with the protocol this run uses: a fleet registered before with
 * another protocol (or an identifier the registry reassigned) gets its devices' protocol,
 * identifier and profile patched. One listing per thousand devices when nothing differs.
 * Returns how many devices were changed.
 */
export async function alignDeviceRegistrations(
  api: RegistryApi,
  wanted: ReadonlyMap<string, ProtocolIdentity>,
): Promise<number> {
  const current = new Map<string, z.output<typeof registeredDeviceSchema>>();
  let cursor: string | undefined;
  do {
    const query = `/v1/devices?limit=${PAGE_SIZE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const res = await requestJson(joinUrl(api.apiUrl, query), {
      method: 'GET',
      token: api.adminToken,
      signal: api.signal,
    });
    if (res.status !== 200) throw httpErrorFrom(res, 'Listing devices');
    const page = devicePageSchema.parse(res.body);
    for (const d of page.items) current.set(d.id, d);
    cursor = page.next ?? undefined;
  } while (cursor);

  let changed = 0;
  for (const [id, want] of wanted) {
    const have = current.get(id);
    if (!have) throw new HttpError(404, 'DEVICE_NOT_REGISTERED', `Device ${id} is not in the registry`);
    if (
      have.protocol === want.protocol &&
      have.identifier === want.identifier &&
      (have.profile ?? null) === want.profile
    ) {
      continue;
    }
    await patchDevice(api, id, want);
    changed++;
  }
  if (changed > 0) api.log.info({ devices: changed }, 'device protocols updated in the registry');
  return changed;
}

async function patchDevice(api: RegistryApi, id: string, want: ProtocolIdentity): Promise<void> {
  const timeout = AbortSignal.timeout(REQUEST_TIMEOUT_MS);
  let response: Response;
  try {
    response = await fetch(joinUrl(api.apiUrl, `/v1/devices/${encodeURIComponent(id)}`), {
      method: 'PATCH',
      headers: { authorization: `Bearer ${api.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(want),
      signal: api.signal ? AbortSignal.any([api.signal, timeout]) : timeout,
    });
  } catch (err) {
    throw new HttpError(0, 'NETWORK_ERROR', `Updating device ${id}: ${(err as Error).message}`);
  }
  const text = await response.text();
  if (response.status !== 200) {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    throw httpErrorFrom({ status: response.status, body, retryAfterMs: undefined }, `Updating device ${id}`);
  }
}
