import type { DeviceDirectory, DeviceEntry } from '../../device-directory.js';
import type { ProfileRegistry } from '../profiles/profile-registry.js';
import type { DeviceProfile, ProfileProtocol } from '../profiles/profile-schema.js';

export type DeviceAccess =
  | { ok: true; device: DeviceEntry; profile: DeviceProfile }
  | {
      ok: false;
      /** UNKNOWN_DEVICE and PROTOCOL_MISMATCH are the device's problem; the profile codes are the registry's. */
      code: 'UNKNOWN_DEVICE' | 'PROTOCOL_MISMATCH' | 'UNKNOWN_PROFILE' | 'PROFILE_PROTOCOL_MISMATCH';
      message: string;
    };

/**
 * Who is sending, and how to read it. Teltonika and OsmAnd carry no credential but the
 * identifier, so a device is accepted on a protocol gateway only when the registry says it talks
 * that protocol: the identifier of a `native` device (which authenticates with its token) cannot
 * be used to send for it over an unauthenticated port. Rejects only when the registry lookup
 * itself fails.
 */
export async function resolveDevice(
  devices: DeviceDirectory,
  profiles: ProfileRegistry,
  protocol: ProfileProtocol,
  identifier: string,
): Promise<DeviceAccess> {
  const found = await devices.lookup([identifier]);
  const device = found.get(identifier);
  if (!device) return { ok: false, code: 'UNKNOWN_DEVICE', message: `No registered device '${identifier}'` };
  if (device.protocol !== protocol) {
    return {
      ok: false,
      code: 'PROTOCOL_MISMATCH',
      message: `Device '${identifier}' is registered for protocol '${device.protocol}', not '${protocol}'`,
    };
  }
  const resolved = profiles.resolve(protocol, device.profile);
  if (!resolved.ok) return { ok: false, code: resolved.code, message: `Device '${identifier}': ${resolved.message}` };
  return { ok: true, device, profile: resolved.profile };
}
