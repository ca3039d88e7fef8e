import { ProfileRegistry } from '@vigia/ingest';
import type { CheckIssue } from './collection.js';

/**
 * A device's `protocol` and `profile` must be ones the gateways can serve: a device registered
 * with `"profile": "default"` on Teltonika used to be accepted, and then every message it sent
 * was refused. Checked at registration and on every PATCH that names either field, against the
 * profiles the gateways load (`ingest/profiles/*.json`, read through `@vigia/ingest`, the
 * package the API already builds on, so there is no second list to keep in step).
 */

/** The protocol of devices that send the contract's records themselves (`POST /v1/telemetry`). */
const NATIVE = 'native';

let shipped: ProfileRegistry | undefined;

/** The shipped profiles, read once (the gateways read the same files at start). */
function shippedProfiles(): ProfileRegistry {
  shipped ??= ProfileRegistry.load();
  return shipped;
}

const list = (names: readonly string[]) => names.map((n) => `'${n}'`).join(', ');

/** What is wrong with a device's protocol and profile, if anything; `profiles` defaults to the shipped ones. */
export function deviceProfileIssues(
  record: { protocol?: unknown; profile?: unknown },
  profiles: ProfileRegistry = shippedProfiles(),
): CheckIssue[] {
  const protocol = typeof record.protocol === 'string' ? record.protocol : NATIVE;
  const profile = typeof record.profile === 'string' && record.profile !== '' ? record.profile : undefined;
  const gatewayProtocol = profiles.protocols.find((p) => p === protocol);
  if (protocol !== NATIVE && gatewayProtocol === undefined) {
    const protocols = [NATIVE, ...profiles.protocols];
    return [
      {
        path: 'protocol',
        code: 'UNKNOWN_PROTOCOL',
        message: `No gateway speaks protocol '${protocol}'; protocols: ${list(protocols)}`,
      },
    ];
  }
  if (profile === undefined) return [];
  if (gatewayProtocol === undefined) {
    return [
      {
        path: 'profile',
        code: 'UNKNOWN_PROFILE',
        message: `A ${NATIVE} device sends the contract's fields itself and takes no profile; leave profile null`,
      },
    ];
  }
  const names = profiles.namesFor(gatewayProtocol);
  if (names.includes(profile)) return [];
  return [
    {
      path: 'profile',
      code: 'UNKNOWN_PROFILE',
      message: `No ${protocol} profile named '${profile}'; ${protocol} profiles: ${list(names)} (or null for the default, '${profiles.defaultFor(gatewayProtocol).name}')`,
    },
  ];
}
