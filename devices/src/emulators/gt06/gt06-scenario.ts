import type { Logger, TelemetryInput } from '@vigia/core';
import type { ScenarioPlan } from '../../scenarios/types.js';
import { loadEmulatorProfile } from '../profiles/emulator-profile.js';
import { emulatedImei } from '../teltonika/imei.js';
import { Gt06Uplink } from './gt06-uplink.js';

/**
 * A regulatory scenario played by GT06 trackers (`npm run scenario -- --protocol gt06`): the
 * scenario's devices are registered as GT06 trackers (an IMEI each, the shipped GT06 profile of
 * the vehicle's kind) and its samples go through the GT06 gateway instead of `POST
 * /v1/telemetry`. A GT06 carries the fix, ignition and (in a taxi) the door alarm only; a
 * scenario whose samples say more cannot be judged over it, and `uncarriedFields` says why.
 */

/** What every GT06 location carries, whatever the profile. */
const NATIVE_FIELDS = new Set(['deviceId', 'ts', 'lat', 'lon', 'speedKmh', 'headingDeg']);
/**
 * A GT06 sends no accuracy; the gateway stores none, which the rules take as a usable fix. A
 * scenario's accuracy up to this is such a fix; a larger one (a GPS fault the scenario plays) is
 * information a GT06 cannot give.
 */
const GOOD_FIX_ACCURACY_M = 20;

const profileFor = (pack: unknown): string => (pack === 'sp-fretamento' ? 'gt06-default' : 'gt06-taxi');

/** A stable IMEI per scenario device and run. */
function imeiFor(runId: string, identifier: string): string {
  let h = 2166136261;
  for (const c of `${runId}/${identifier}`) h = Math.imul(h ^ c.charCodeAt(0), 16777619) >>> 0;
  return emulatedImei(h % 1_000_000_000);
}

export interface Gt06Plan {
  plan: ScenarioPlan;
  /** Scenario device identifier → its IMEI and profile. */
  devices: Map<string, { imei: string; profile: string }>;
}

/** The plan with its devices registered as GT06 trackers. */
export function asGt06Plan(plan: ScenarioPlan, runId: string): Gt06Plan {
  const packOf = new Map<unknown, unknown>();
  for (const step of plan.registry) if (step.collection === 'vehicles') packOf.set(step.body.id, step.body.pack);
  const devices = new Map<string, { imei: string; profile: string }>();
  const registry = plan.registry.map((step) => {
    if (step.collection !== 'devices') return step;
    const identifier = String(step.body.identifier);
    const device = { imei: imeiFor(runId, identifier), profile: profileFor(packOf.get(step.body.vehicleId)) };
    devices.set(identifier, device);
    return { ...step, body: { ...step.body, identifier: device.imei, protocol: 'gt06', profile: device.profile } };
  });
  return { plan: { ...plan, registry }, devices };
}

/** The sample fields of a plan that its GT06 devices cannot carry (empty: the scenario plays as written). */
export function uncarriedFields(g: Gt06Plan): string[] {
  const out = new Set<string>();
  for (const sample of g.plan.samples) {
    const device = g.devices.get(sample.deviceId);
    const mapped = new Set(Object.keys(device ? loadProfileFields(device.profile) : {}));
    for (const [key, value] of Object.entries(sample)) {
      if (value === undefined || NATIVE_FIELDS.has(key) || mapped.has(key)) continue;
      if (key === 'accuracyM' && typeof value === 'number' && value <= GOOD_FIX_ACCURACY_M) continue;
      if (value !== null && typeof value === 'object') {
        for (const leaf of Object.keys(value)) if (!mapped.has(`${key}.${leaf}`)) out.add(`${key}.${leaf}`);
      } else out.add(key);
    }
  }
  return [...out].sort();
}

const profileFields = new Map<string, Record<string, unknown>>();
function loadProfileFields(name: string): Record<string, unknown> {
  let fields = profileFields.get(name);
  if (!fields) {
    fields = loadEmulatorProfile(name).fields;
    profileFields.set(name, fields);
  }
  return fields;
}

/**
 * Sends a plan's samples through the GT06 gateway at `host:port`, each device on its own
 * connection. Live: in time order, each sample echoed before the next leaves (the order the
 * rules see is the order of the plan). Late: each device's whole backlog at once, devices in the
 * order given. Returns the samples echoed; throws when one is not echoed within `timeoutMs`.
 */
export async function sendOverGt06(
  g: Gt06Plan,
  gateway: { host: string; port: number },
  log: Logger,
  options: { late?: boolean; deviceOrder?: readonly string[]; timeoutMs?: number } = {},
): Promise<number> {
  const uplinks = new Map<string, Gt06Uplink>();
  const uplinkOf = (identifier: string): Gt06Uplink => {
    let uplink = uplinks.get(identifier);
    if (!uplink) {
      const device = g.devices.get(identifier);
      if (!device) throw new Error(`scenario device ${identifier} is not registered as a GT06 tracker`);
      const profile = loadEmulatorProfile(device.profile);
      if (profile.protocol !== 'gt06') throw new Error(`profile ${device.profile} is not a GT06 profile`);
      uplink = new Gt06Uplink({ ...gateway, imei: device.imei, profile, log });
      uplinks.set(identifier, uplink);
    }
    return uplink;
  };
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  const drain = async (uplink: Gt06Uplink) => {
    while (uplink.pending > 0) {
      if (Date.now() > deadline)
        throw new Error(`GT06 gateway ${gateway.host}:${gateway.port}: samples not echoed in time`);
      await (uplink.flush() ?? new Promise((r) => setTimeout(r, 100)));
    }
  };
  try {
    if (options.late) {
      const order = options.deviceOrder ?? [...new Set(g.plan.samples.map((s) => s.deviceId))];
      for (const identifier of order) {
        const uplink = uplinkOf(identifier);
        for (const s of g.plan.samples) if (s.deviceId === identifier) uplink.enqueue(s as TelemetryInput);
        await drain(uplink);
      }
    } else {
      for (const s of g.plan.samples) {
        const uplink = uplinkOf(s.deviceId);
        uplink.enqueue(s as TelemetryInput);
        await drain(uplink);
      }
    }
    return [...uplinks.values()].reduce((n, u) => n + u.stats.accepted, 0);
  } finally {
    await Promise.all([...uplinks.values()].map((u) => u.close()));
  }
}
