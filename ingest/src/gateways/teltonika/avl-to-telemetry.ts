import type { DecodedRecord } from '../pipeline/record-sink.js';
import { mapProfileFields, type RawValue } from '../profiles/field-mapping.js';
import type { DeviceProfile, TeltonikaSource } from '../profiles/profile-schema.js';
import type { AvlRecord, IoElement } from './avl-record.js';

function rawOf(e: IoElement): RawValue {
  return e.kind === 'int' ? { kind: 'int', value: e.value, bytes: e.bytes } : { kind: 'bytes', value: e.value };
}

/**
 * One AVL record as the gateway's common record: the GPS element is the fix, the device's
 * profile maps the IO elements.
 *
 * With no satellites in use the device repeats its last known coordinates and reports speed 0
 * (Teltonika: "0x0000 if GPS data is invalid"). That position is kept — it is where the vehicle
 * was last seen, and the record's other inputs (meter, door) still count — but speed, heading
 * and accuracy are left unknown: a stale position with speed 0 must not look like a vehicle
 * dwelling there.
 */
export function avlRecordToDecoded(
  imei: string,
  record: AvlRecord,
  profile: DeviceProfile,
  /** The record's bytes as received, for the quarantine. */
  raw?: Buffer,
): DecodedRecord {
  const byId = new Map<number, IoElement>();
  // A repeated id in one record: the first occurrence wins, as in the documented decoders.
  for (const e of record.io) if (!byId.has(e.id)) byId.set(e.id, e);
  const hasFix = record.gps.satellites > 0;
  const mapped = mapProfileFields(profile, (m) => {
    const e = byId.get((m as TeltonikaSource).io);
    return e ? rawOf(e) : undefined;
  });
  if (!hasFix) mapped.values = mapped.values.filter((v) => v.field !== 'accuracyM');
  return {
    fix: {
      deviceId: imei,
      tsMs: record.timestampMs,
      lat: record.gps.latitude,
      lon: record.gps.longitude,
      speedKmh: hasFix ? record.gps.speedKmh : undefined,
      headingDeg: hasFix ? record.gps.angleDeg : undefined,
    },
    mapped,
    raw,
  };
}
