import type { TelemetryInput } from '@vigia/core';
import type { Gt06Profile } from '../profiles/emulator-profile.js';
import { fieldValue, gt06RawFor } from '../profiles/field-encoding.js';
import {
  GT06_ALARM,
  GT06_PROTOCOL,
  type Gt06Cell,
  type Gt06Fix,
  type Gt06Status,
  LANGUAGE_ENGLISH,
  locationPacket,
  statusPacket,
  TERMINAL_INFO,
} from './gt06-codec.js';

/** Satellites in use reported with a fix: the simulator's GPS always has one. */
const SATELLITES_WITH_FIX = 11;
/** Brazil's mobile country code, and Vivo's network code (the carrier of the captured trackers). */
const MCC_BRAZIL = 724;
const MNC_VIVO = 6;
/** Highest voltage level and GSM signal: the simulated tracker is powered by the car and well covered. */
const VOLTAGE_LEVEL_FULL = 6;
const GSM_SIGNAL_STRONG = 4;

const timestampOf = (sample: TelemetryInput): number =>
  typeof sample.ts === 'number' ? sample.ts : Date.parse(sample.ts);

/** The GPS fix of a sample: time in whole UTC seconds, speed and course as whole km/h and degrees. */
export function sampleFix(sample: TelemetryInput): Gt06Fix {
  return {
    timestampMs: timestampOf(sample),
    latitude: sample.lat,
    longitude: sample.lon,
    speedKmh: sample.speedKmh ?? 0,
    courseDeg: sample.headingDeg ?? 0,
    satellites: SATELLITES_WITH_FIX,
    positioned: true,
    differential: false,
  };
}

/** A serving cell that changes as the vehicle moves: LAC per ~10 km square, cell per ~1 km. */
export function sampleCell(sample: TelemetryInput): Gt06Cell {
  const lac = (Math.floor((sample.lat + 90) * 10) * 3600 + Math.floor((sample.lon + 180) * 10)) % 0xfffe;
  const cell = (Math.floor((sample.lat + 90) * 100) * 36_000 + Math.floor((sample.lon + 180) * 100)) % 0xfffffe;
  return { mcc: MCC_BRAZIL, mnc: MNC_VIVO, lac: lac + 1, cellId: cell + 1 };
}

/**
 * What the tracker wired as `profile` says about itself at `sample`: the ACC line, the terminal
 * info bits, the alarm code and the levels the profile maps, with a healthy device's values for
 * the rest. `mapped` lists the status inputs the sample gave a value to that only a status packet
 * carries (a 0x22 location carries ACC, and an alarm goes in an alarm packet anyway).
 */
export function sampleStatus(sample: TelemetryInput, profile: Gt06Profile): Gt06Status & { mapped: Set<string> } {
  let acc = false;
  let terminalInfo = TERMINAL_INFO.gpsTracking | TERMINAL_INFO.charging;
  const status = {
    voltageLevel: VOLTAGE_LEVEL_FULL,
    gsmSignal: GSM_SIGNAL_STRONG,
    alarm: GT06_ALARM.normal as number,
    language: LANGUAGE_ENGLISH,
  };
  const mapped = new Set<string>();
  for (const [field, m] of Object.entries(profile.fields)) {
    const raw = gt06RawFor(m, fieldValue(sample, field));
    if (!raw) continue;
    switch (m.input) {
      case 'acc':
        acc = raw.value !== 0;
        break;
      case 'terminalInfo':
        // A bit input sets or clears its bit; an unbitted one is the whole byte.
        terminalInfo = raw.bits === undefined ? raw.value : (terminalInfo & ~raw.bits) | raw.value;
        mapped.add(m.input);
        break;
      case 'alarm': {
        // With alarmCode, the field is 1 on a packet with that code: a true value raises it, a
        // false one has no packet of its own. A field mapped to "no alarm" leaves another's code.
        const code = m.alarmCode === undefined ? raw.value : raw.value !== 0 ? m.alarmCode : GT06_ALARM.normal;
        if (code !== GT06_ALARM.normal) status.alarm = code;
        break;
      }
      case 'voltageLevel':
        status.voltageLevel = raw.value;
        mapped.add(m.input);
        break;
      case 'gsmSignal':
        status.gsmSignal = raw.value;
        mapped.add(m.input);
        break;
      // externalVoltage, odometer: only in the 0x32 packets of some firmwares, not this tracker's.
    }
  }
  terminalInfo = acc ? terminalInfo | TERMINAL_INFO.acc : terminalInfo & ~TERMINAL_INFO.acc;
  return { terminalInfo, ...status, mapped };
}

/**
 * A sample as the packet a GT06 tracker wired as `profile` would send: an alarm packet (0x26) when
 * a mapped input is in alarm, a status packet (0x16) when the profile reads other status inputs
 * than ACC, else the plain location packet (0x22) that carries the ACC line.
 */
export function samplePacket(
  sample: TelemetryInput,
  profile: Gt06Profile,
  serial: number,
  reupload: boolean,
): { protocol: number; packet: Buffer } {
  const fix = sampleFix(sample);
  const cell = sampleCell(sample);
  const status = sampleStatus(sample, profile);
  const { mapped, ...bytes } = status;
  if (status.alarm !== GT06_ALARM.normal) {
    return { protocol: GT06_PROTOCOL.alarm, packet: statusPacket(GT06_PROTOCOL.alarm, fix, cell, bytes, serial) };
  }
  if (mapped.size > 0) {
    return { protocol: GT06_PROTOCOL.status, packet: statusPacket(GT06_PROTOCOL.status, fix, cell, bytes, serial) };
  }
  const acc = (status.terminalInfo & TERMINAL_INFO.acc) !== 0;
  return {
    protocol: GT06_PROTOCOL.location,
    packet: locationPacket({ fix, cell, acc, uploadMode: 0, reupload }, serial),
  };
}
