import type { DecodedRecord } from '../pipeline/record-sink.js';
import { mapProfileFields, type RawValue } from '../profiles/field-mapping.js';
import type { DeviceProfile, Gt06Source } from '../profiles/profile-schema.js';
import { gt06TimeToMs } from './gt06-decoder.js';
import type { Gt06DeviceState } from './gt06-device-state.js';
import type { Gt06Message, Gt06Status } from './gt06-message.js';

export type Gt06Position = Extract<Gt06Message, { kind: 'position' }>;

/** The record with the packet it came from, kept in the quarantine if the sink refuses the record. */
export type Gt06DecodedRecord = DecodedRecord & { raw: Buffer };

const ACC_BIT = 0x02;

/** The ACC wire as this packet says it, else as the device last said it. */
export function accOf(p: Gt06Position, state: Gt06DeviceState): boolean | undefined {
  if (p.acc !== undefined) return p.acc;
  if (p.status) return (p.status.terminalInfo & ACC_BIT) !== 0;
  if (p.gps.accFromCourse !== undefined) return p.gps.accFromCourse;
  return state.acc;
}

/** What a packet teaches the device state: its ACC and status, for the packets that lack them. */
export function learn(state: Gt06DeviceState, m: Gt06Message): void {
  if (m.kind === 'status') {
    state.status = m.status;
    state.acc = (m.status.terminalInfo & ACC_BIT) !== 0;
  } else if (m.kind === 'position') {
    const acc = accOf(m, {});
    if (acc !== undefined) state.acc = acc;
    if (m.status) state.status = m.status;
  }
}

function int(value: number, bytes: number): RawValue {
  return { kind: 'int', value: BigInt(value), bytes };
}

function rawOf(m: Gt06Source, p: Gt06Position, state: Gt06DeviceState): RawValue | undefined {
  const status: Gt06Status | undefined = p.status ?? state.status;
  switch (m.input) {
    case 'acc': {
      const acc = accOf(p, state);
      return acc === undefined ? undefined : int(acc ? 1 : 0, 1);
    }
    case 'terminalInfo':
      return status ? int(status.terminalInfo, 1) : undefined;
    case 'alarm':
      if (p.alarm === undefined) return undefined;
      if (m.alarmCode !== undefined) return p.alarm === m.alarmCode ? int(1, 1) : undefined;
      return int(p.alarm, 1);
    case 'voltageLevel':
      return status ? int(status.voltageLevel, 1) : undefined;
    case 'gsmSignal':
      return status ? int(status.gsmSignal, 1) : undefined;
    case 'externalVoltage':
      return p.externalVoltageCv === undefined ? undefined : int(p.externalVoltageCv, 2);
    case 'odometer':
      return p.mileageM === undefined ? undefined : int(p.mileageM, 4);
  }
}

/**
 * One GT06 position as the gateway's common record: the GPS block is the fix, the device's
 * profile maps the rest, its clock setting turns the firmware's time into UTC.
 *
 * Without a fix (course/status bit 12 clear) the tracker repeats its last known coordinates: that
 * position is kept — it is where the vehicle was last seen, and the record's inputs still count —
 * but speed and heading are left unknown, as for Teltonika, so a stale position with speed 0 does
 * not look like a vehicle dwelling there.
 */
export function gt06PositionToDecoded(
  imei: string,
  p: Gt06Position,
  state: Gt06DeviceState,
  profile: DeviceProfile,
  raw: Buffer,
): Gt06DecodedRecord {
  const offset =
    (profile.protocol === 'gt06' ? profile.clock?.utcOffsetMinutes : undefined) ?? state.loginUtcOffsetMinutes ?? 0;
  const mapped = mapProfileFields(profile, (m) => rawOf(m as Gt06Source, p, state));
  return {
    fix: {
      deviceId: imei,
      tsMs: gt06TimeToMs(p.gps.time, offset),
      lat: p.gps.latitude,
      lon: p.gps.longitude,
      speedKmh: p.gps.positioned ? p.gps.speedKmh : undefined,
      headingDeg: p.gps.positioned ? p.gps.courseDeg : undefined,
    },
    mapped,
    raw,
  };
}
