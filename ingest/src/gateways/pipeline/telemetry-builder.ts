import { type TelemetryInput, type TelemetryParsed, telemetryInputSchema, timestampProblem } from '@vigia/core';
import type { MappedFields } from '../profiles/field-mapping.js';
import type { FieldValue, ProfileField } from '../profiles/profile-schema.js';

/**
 * Builds the `TelemetryInput` of the public contract from what a protocol decoded (the fix) and
 * what the device's profile mapped, and validates it with the very schema `POST /v1/telemetry`
 * uses, plus the same time window (`timestampProblem`), so every way in enforces the same limits.
 *
 * Two kinds of failure are treated differently, on purpose:
 * - the fix itself (time, position, GPS speed and heading) impossible: the record is refused —
 *   an impossible position must never reach the map or the distance totals;
 * - a profile-mapped input impossible (a passenger counter reading 9 999, a taximeter code the
 *   profile does not know): that input is left out and the rest is kept, so one broken sensor
 *   cannot erase the vehicle's GPS trail, which most rules depend on.
 */

/** What the protocol itself carries: the fix. */
export interface DecodedFix {
  /** The identifier the device sent (IMEI, OsmAnd id). */
  deviceId: string;
  /** Epoch milliseconds. */
  tsMs: number;
  lat: number;
  lon: number;
  speedKmh?: number | undefined;
  headingDeg?: number | undefined;
  accuracyM?: number | undefined;
}

export type BuiltRecord =
  | { ok: true; input: TelemetryParsed; dropped: { field: ProfileField; reason: string }[] }
  | { ok: false; code: 'NO_POSITION' | 'INVALID_FIX' | 'FUTURE_TIMESTAMP' | 'PAST_TIMESTAMP'; message: string };

type Mutable = Record<string, unknown>;

function setField(target: Mutable, field: ProfileField, value: FieldValue): void {
  const [head, leaf] = field.split('.') as [string, string | undefined];
  if (leaf === undefined) {
    target[head] = value;
    return;
  }
  const group = (target[head] as Mutable | undefined) ?? {};
  group[leaf] = value;
  target[head] = group;
}

function deleteField(target: Mutable, field: ProfileField): void {
  const [head, leaf] = field.split('.') as [string, string | undefined];
  if (leaf === undefined) {
    delete target[head];
    return;
  }
  const group = target[head] as Mutable | undefined;
  if (!group) return;
  delete group[leaf];
  if (Object.keys(group).length === 0) delete target[head];
}

/** The profile field a schema issue is about, if it is one (`['meter', 'tariff']` → `meter.tariff`). */
function fieldOfIssue(path: readonly PropertyKey[], mapped: ReadonlySet<string>): ProfileField | undefined {
  const full = path.slice(0, 2).map(String).join('.');
  if (mapped.has(full)) return full as ProfileField;
  const head = String(path[0] ?? '');
  return mapped.has(head) ? (head as ProfileField) : undefined;
}

/** A meter reading without the meter's state is not one the contract can carry. */
function dropOrphanedMeter(candidate: Mutable, dropped: { field: ProfileField; reason: string }[]): void {
  const meter = candidate.meter as Mutable | undefined;
  if (!meter || meter.state !== undefined) return;
  for (const leaf of Object.keys(meter)) {
    dropped.push({ field: `meter.${leaf}` as ProfileField, reason: 'the meter state is unknown in this record' });
  }
  delete candidate.meter;
}

export function buildTelemetry(
  fix: DecodedFix,
  mapped: MappedFields,
  /** `maxPastAgeS` absent or 0: no bound on the past. */
  limits: { receivedAt: Date; maxFutureSkewS: number; maxPastAgeS?: number | undefined },
): BuiltRecord {
  // 0,0 is what trackers send when they have never had a fix; stored, it would put the vehicle
  // in the Gulf of Guinea and add thousands of kilometres to its distance.
  if (fix.lat === 0 && fix.lon === 0) {
    return { ok: false, code: 'NO_POSITION', message: 'No GPS position (latitude and longitude are 0)' };
  }
  const candidate: Mutable = {
    deviceId: fix.deviceId,
    ts: fix.tsMs,
    lat: fix.lat,
    lon: fix.lon,
  };
  if (fix.speedKmh !== undefined) candidate.speedKmh = fix.speedKmh;
  if (fix.headingDeg !== undefined) candidate.headingDeg = fix.headingDeg;
  if (fix.accuracyM !== undefined) candidate.accuracyM = fix.accuracyM;
  const fromProfile = new Set<string>();
  for (const { field, value } of mapped.values) {
    // The fix's own accuracy wins over one estimated from a profile input (HDOP).
    if (field === 'accuracyM' && fix.accuracyM !== undefined) continue;
    setField(candidate, field, value);
    fromProfile.add(field);
  }
  const dropped = [...mapped.problems];

  // Invalid profile inputs are removed and the record checked again; one round removes them all,
  // the second only the meter readings orphaned when the meter state itself was removed.
  for (let attempt = 0; attempt < 3; attempt++) {
    dropOrphanedMeter(candidate, dropped);
    const result = telemetryInputSchema.safeParse(candidate as TelemetryInput);
    if (result.success) {
      const late = timestampProblem(result.data.ts, limits.receivedAt, {
        maxFutureSkewS: limits.maxFutureSkewS,
        maxPastAgeS: limits.maxPastAgeS ?? 0,
      });
      if (late) return { ok: false, ...late };
      return { ok: true, input: result.data, dropped };
    }
    const fixIssues = result.error.issues.filter((i) => fieldOfIssue(i.path, fromProfile) === undefined);
    if (fixIssues.length > 0 || attempt === 2) {
      const issues = fixIssues.length > 0 ? fixIssues : result.error.issues;
      const message = issues.map((i) => `${i.path.join('.') || 'record'}: ${i.message}`).join('; ');
      return { ok: false, code: 'INVALID_FIX', message };
    }
    for (const issue of result.error.issues) {
      const field = fieldOfIssue(issue.path, fromProfile) as ProfileField;
      deleteField(candidate, field);
      dropped.push({ field, reason: issue.message });
    }
  }
  return { ok: false, code: 'INVALID_FIX', message: 'record did not validate' };
}
