import type { TelemetryInput } from '@vigia/core';
import type { TeltonikaProfile } from '../profiles/emulator-profile.js';
import { fieldValue, teltonikaRawFor } from '../profiles/field-encoding.js';
import type { EmulatedAvlRecord, EmulatedIo } from './codec8e.js';

/** Satellites in use reported with a fix: the simulator's GPS always has one. */
const SATELLITES_WITH_FIX = 11;

function smallestWidth(value: bigint): 1 | 2 | 4 | 8 {
  if (value < 0x100n) return 1;
  if (value < 0x10000n) return 2;
  if (value < 0x100000000n) return 4;
  return 8;
}

/**
 * A simulator sample as the AVL record a Teltonika tracker configured by `profile` would send:
 * the position in the GPS element (speed and heading as whole km/h and degrees, as the device
 * sends them), every other field in the IO element the profile assigns to it.
 */
export function sampleToAvl(sample: TelemetryInput, profile: TeltonikaProfile): EmulatedAvlRecord {
  const elements = new Map<number, EmulatedIo>();
  for (const [field, m] of Object.entries(profile.fields)) {
    const raw = teltonikaRawFor(m, fieldValue(sample, field));
    if (!raw) continue;
    if (raw.kind === 'bytes') {
      elements.set(m.io, { id: m.io, kind: 'bytes', value: raw.value });
      continue;
    }
    const existing = elements.get(m.io);
    // Several booleans packed as bits of one input share the element.
    const value = existing?.kind === 'int' && raw.bits !== undefined ? existing.value | raw.value : raw.value;
    const bytes = typeof m.size === 'number' ? m.size : smallestWidth(value);
    elements.set(m.io, { id: m.io, kind: 'int', bytes, value });
  }
  const ts = typeof sample.ts === 'number' ? sample.ts : Date.parse(sample.ts);
  return {
    timestampMs: ts,
    priority: 0,
    latitude: sample.lat,
    longitude: sample.lon,
    altitudeM: 0,
    angleDeg: Math.round(sample.headingDeg ?? 0) % 360,
    satellites: SATELLITES_WITH_FIX,
    speedKmh: Math.round(sample.speedKmh ?? 0),
    eventIoId: 0,
    io: [...elements.values()],
  };
}
