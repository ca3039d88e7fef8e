import { z } from 'zod';
import { HttpError, httpErrorFrom, joinUrl, requestJson } from '../api/http.js';
import type { RegistryApi } from '../api/registry-registration.js';
import type { RosterEntry } from '../fleet/roster.js';
import { emulatedImei } from './teltonika/imei.js';

/** How a simulated device talks: the native JSON API, or one of the emulated device protocols. */
export const DEVICE_PROTOCOLS = ['native', 'osmand', 'teltonika', 'gt06'] as const;
export type DeviceProtocol = (typeof DEVICE_PROTOCOLS)[number];

/** How the simulated fleet talks: one protocol for every device, or `mixed` (each device one of them in turn). */
export const SIM_PROTOCOLS = [...DEVICE_PROTOCOLS, 'mixed'] as const;
export type SimProtocol = (typeof SIM_PROTOCOLS)[number];

/** What the registry must say about a device for the gateway to accept it and read it right. */
export interface ProtocolIdentity {
  protocol: DeviceProtocol;
  identifier: string;
  profile: string | null;
}

const PACK_SERIAL: Record<string, number> = { DF: 1, BEL: 2, SP: 3 };

/**
 * The protocol a device speaks in a `mixed` fleet: the device's number in its pack picks one in
 * turn, so every pack (and every city) has devices of each protocol, the same ones on every run.
 */
export function mixedProtocol(identifier: string): DeviceProtocol {
  const n = Number(/-(\d+)$/.exec(identifier)?.[1] ?? 0);
  return DEVICE_PROTOCOLS[n % DEVICE_PROTOCOLS.length] as DeviceProtocol;
}

/**
 * The identity an entry's device has under `protocol`: native and OsmAnd devices keep the
 * roster's identifier (`SIM-DF-0001`); a Teltonika or GT06 tracker is known by its IMEI, one per
 * roster device (`SIM-BEL-0007` → pack 2, number 7). Profiles are the shipped ones for each
 * vehicle kind. In a `mixed` fleet each device gets the protocol `mixedProtocol` gives it.
 */
export function protocolIdentity(entry: RosterEntry, fleetProtocol: SimProtocol): ProtocolIdentity {
  const identifier = entry.device.identifier;
  const protocol = fleetProtocol === 'mixed' ? mixedProtocol(identifier) : fleetProtocol;
  if (protocol === 'native') return { protocol, identifier, profile: null };
  if (protocol === 'osmand') return { protocol, identifier, profile: 'osmand-traccar-client' };
  const match = /^SIM-([A-Z]+)-(\d+)$/.exec(identifier);
  const pack = match ? PACK_SERIAL[match[1] as string] : undefined;
  if (!match || pack === undefined) throw new Error(`No IMEI for device identifier '${identifier}'`);
  const imei = emulatedImei(pack * 1_000_000 + Number(match[2]));
  const bus = entry.vehicle.pack === 'sp-fretamento';
  if (protocol === 'gt06') {
    // A GT06 has no input for a bus's passenger counter or tachograph: a bus gets position and ignition.
    return { protocol, identifier: imei, profile: bus ? 'gt06-default' : 'gt06-taxi' };
  }
  return { protocol, identifier: imei, profile: bus ? 'teltonika-fmc650-bus' : 'teltonika-fmc130-taxi' };
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
