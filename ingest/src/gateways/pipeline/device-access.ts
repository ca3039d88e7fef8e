import type { Logger } from '@vigia/core';
import type { DeviceDirectory, DeviceEntry } from '../../device-directory.js';
import type { ProfileRegistry } from '../profiles/profile-registry.js';
import type { DeviceProfile, ProfileProtocol } from '../profiles/profile-schema.js';

export type DeviceAccess =
  | {
      ok: true;
      device: DeviceEntry;
      profile: DeviceProfile;
      /** The registry names a profile that cannot be used: `profile` maps nothing (the fix only). */
      profileProblem?: { code: 'UNKNOWN_PROFILE' | 'PROFILE_PROTOCOL_MISMATCH'; message: string };
    }
  | {
      ok: false;
      /** The device's problem: the identifier is not registered, or not for this protocol. */
      code: 'UNKNOWN_DEVICE' | 'PROTOCOL_MISMATCH';
      message: string;
    };

/**
 * Who is sending, and how to read it. Teltonika and OsmAnd carry no credential but the
 * identifier, so a device is accepted on a protocol gateway only when the registry says it talks
 * that protocol: the identifier of a `native` device (which authenticates with its token) cannot
 * be used to send for it over an unauthenticated port. Rejects only when the registry lookup
 * itself fails.
 *
 * A device whose registry entry names a profile that does not exist (removed since the device
 * was registered; the API refuses to register one) is still accepted, with a profile that maps
 * nothing: its fix (time, position, speed, heading), which the protocol itself carries, is
 * stored and acknowledged, and the problem is logged (PROFILE_UNAVAILABLE) for a person to fix.
 * Refusing instead cost the vehicle its whole trail, and made devices re-send without end: a
 * Teltonika reconnects after a refused handshake, and Traccar Client retries every answer but
 * 2xx, a 4xx included. Inputs are not read with another profile: mis-mapped they would be
 * false evidence (a door input read as the taximeter).
 */
export async function resolveDevice(
  devices: DeviceDirectory,
  profiles: ProfileRegistry,
  protocol: ProfileProtocol,
  identifier: string,
  /** Where PROFILE_UNAVAILABLE is logged. */
  log?: Logger,
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
  if (!resolved.ok) {
    const message = `Device '${identifier}': ${resolved.message}; storing its fix only`;
    log?.warn(
      { protocol, device: identifier, profile: device.profile, code: 'PROFILE_UNAVAILABLE', reason: resolved.code },
      message,
    );
    return {
      ok: true,
      device,
      profile: { ...profiles.defaultFor(protocol), fields: {} },
      profileProblem: { code: resolved.code, message },
    };
  }
  return { ok: true, device, profile: resolved.profile };
}
