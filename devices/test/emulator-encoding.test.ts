import { type TelemetryInput, telemetryInputSchema } from '@vigia/core';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  avlRecordToDecoded,
  buildTelemetry,
  type DeviceProfile,
  decodeAvlData,
  mapProfileFields,
  ProfileRegistry,
  parseOsmandQuery,
  scanFrame,
} from '../../ingest/src/gateways/index.js';
import { ManualClock } from '../src/clock.js';
import { sampleToQuery } from '../src/emulators/osmand/sample-to-query.js';
import {
  loadEmulatorProfile,
  type OsmandProfile,
  type TeltonikaProfile,
} from '../src/emulators/profiles/emulator-profile.js';
import { avlPacket, crc16, imeiMessage } from '../src/emulators/teltonika/codec8e.js';
import { emulatedImei, isValidImei, luhnCheckDigit } from '../src/emulators/teltonika/imei.js';
import { sampleToAvl } from '../src/emulators/teltonika/sample-to-avl.js';
import { Fleet } from '../src/fleet/fleet.js';
import { buildRoster } from '../src/fleet/roster.js';

/**
 * The emulators are a second, independent implementation of the device side: their frames are
 * checked against Teltonika's documentation byte for byte, then fed through the gateway's own
 * decoder and the same profile files, and must come out as the simulator's samples.
 */

describe('IMEIs', () => {
  it('computes the Luhn check digit of real IMEIs', () => {
    // 49015420323751 8 and 35630704244101 3 (Teltonika's handshake example).
    expect(luhnCheckDigit('49015420323751')).toBe(8);
    expect(luhnCheckDigit('35630704244101')).toBe(3);
    expect(isValidImei('356307042441013')).toBe(true);
    expect(isValidImei('356307042441014')).toBe(false);
  });

  it('gives every emulated device its own valid IMEI', () => {
    const imeis = [0, 1, 1_000_001, 3_000_072, 999_999_999].map(emulatedImei);
    expect(new Set(imeis).size).toBe(5);
    for (const imei of imeis) expect(isValidImei(imei), imei).toBe(true);
    expect(imeis[1]).toMatch(/^35999000000001\d$/);
  });
});

describe('Codec 8 Extended encoder', () => {
  it('builds the documentation’s Codec 8 Extended example byte for byte', () => {
    const frame = avlPacket([
      {
        timestampMs: 0x16b412cee00,
        priority: 1,
        latitude: 0,
        longitude: 0,
        altitudeM: 0,
        angleDeg: 0,
        satellites: 0,
        speedKmh: 0,
        eventIoId: 1,
        io: [
          { id: 0x01, kind: 'int', bytes: 1, value: 0x01n },
          { id: 0x11, kind: 'int', bytes: 2, value: 0x1dn },
          { id: 0x10, kind: 'int', bytes: 4, value: 0x015e2c88n },
          { id: 0x0b, kind: 'int', bytes: 8, value: 0x3544c87an },
          { id: 0x0e, kind: 'int', bytes: 8, value: 0x1dd7e06an },
        ],
      },
    ]);
    expect(frame.toString('hex').toUpperCase()).toBe(
      '000000000000004A8E010000016B412CEE000100000000000000000000000000000000010005000100010100010011001D00010010015E2C880002000B000000003544C87A000E000000001DD7E06A00000100002994',
    );
    expect(
      crc16(
        Buffer.from(
          '08010000016B40D8EA30010000000000000000000000000000000105021503010101425E0F01F10000601A014E000000000000000001',
          'hex',
        ),
      ),
    ).toBe(0xc7cf);
    expect(imeiMessage('356307042441013').toString('hex').toUpperCase()).toBe('000F333536333037303432343431303133');
  });
});

/** Ten simulated minutes of a fleet with all three kinds of vehicle. */
function samples(): TelemetryInput[] {
  const start = Date.parse('2026-03-10T19:50:00-03:00');
  const roster = buildRoster(9, start);
  const clock = new ManualClock(start);
  const fleet = new Fleet(roster, { seed: 'emulators', startMs: start });
  const out: TelemetryInput[] = [];
  while (clock.now() <= start + 600_000) {
    out.push(...fleet.tick(clock.now(), 2000));
    clock.advance(2000);
  }
  return out;
}

const circular = (a: number, b: number) => Math.min(Math.abs(a - b), 360 - Math.abs(a - b));

/** A sample as the gateway stored it must say what the simulator said, within the protocol's resolution. */
function expectSameReading(
  got: ReturnType<typeof telemetryInputSchema.parse>,
  want: ReturnType<typeof telemetryInputSchema.parse>,
  resolution: { speed: number; heading: number; accuracy: number; tacho: number; tsMs: number },
) {
  const label = `${want.deviceId} ${want.ts.toISOString()}`;
  expect(Math.abs(got.ts.getTime() - want.ts.getTime()), label).toBeLessThanOrEqual(resolution.tsMs);
  expect(Math.abs(got.lat - want.lat), label).toBeLessThan(1e-7);
  expect(Math.abs(got.lon - want.lon), label).toBeLessThan(1e-7);
  expect(Math.abs((got.speedKmh ?? 0) - (want.speedKmh ?? 0)), label).toBeLessThanOrEqual(resolution.speed);
  expect(circular(got.headingDeg ?? 0, want.headingDeg ?? 0), label).toBeLessThanOrEqual(resolution.heading);
  expect(Math.abs((got.accuracyM ?? 0) - (want.accuracyM ?? 0)), label).toBeLessThanOrEqual(resolution.accuracy);
  for (const k of ['ignition', 'doorOpen', 'passengers', 'childrenUnder7', 'boardings', 'alightings'] as const) {
    expect(got[k], `${label} ${k}`).toEqual(want[k]);
  }
  expect(got.meter, label).toEqual(want.meter);
  expect(got.tacho?.driverId, label).toEqual(want.tacho?.driverId);
  expect(Math.abs((got.tacho?.speedKmh ?? 0) - (want.tacho?.speedKmh ?? 0)), label).toBeLessThanOrEqual(
    resolution.tacho,
  );
}

describe('simulator samples through the emulators and back through the gateway', () => {
  let all: TelemetryInput[];
  const registry = ProfileRegistry.load();
  const limits = { receivedAt: new Date('2030-01-01T00:00:00Z'), maxFutureSkewS: 300 };

  beforeAll(() => {
    all = samples();
  });

  it('Teltonika: the FMC130 taxi and FMC650 bus profiles carry every field the simulator reports', () => {
    let checked = 0;
    const meterStates = new Set<string>();
    for (const sample of all) {
      const bus = sample.deviceId.startsWith('SIM-SP-');
      const name = bus ? 'teltonika-fmc650-bus' : 'teltonika-fmc130-taxi';
      const emulator = loadEmulatorProfile(name) as TeltonikaProfile;
      const scan = scanFrame(avlPacket([sampleToAvl(sample, emulator)]), 1 << 16);
      if (scan.kind !== 'frame') throw new Error('incomplete frame');
      expect(scan.crcOk).toBe(true);
      const [record] = decodeAvlData(Buffer.from(scan.data)).records;
      const decoded = avlRecordToDecoded(sample.deviceId, record!, registry.get(name) as DeviceProfile);
      expect(decoded.mapped.problems).toEqual([]);
      const built = buildTelemetry(decoded.fix, decoded.mapped, limits);
      if (!built.ok) throw new Error(built.message);
      expect(built.dropped).toEqual([]);
      // Whole km/h and degrees in the GPS element; HDOP in tenths (0.5 m); tachograph in 1/256 km/h.
      expectSameReading(built.input, telemetryInputSchema.parse(sample), {
        speed: 0.5,
        heading: 0.5,
        accuracy: 0.25,
        tacho: 1 / 512 + 1e-9,
        tsMs: 0,
      });
      if (sample.meter) meterStates.add(sample.meter.state);
      checked++;
    }
    expect(checked).toBeGreaterThan(1000);
    // The ten minutes exercised the taximeter beyond "free".
    expect(meterStates.size).toBeGreaterThanOrEqual(2);
  });

  it('OsmAnd: the Traccar Client query form with the app attributes carries every field', () => {
    const name = 'osmand-traccar-client';
    const emulator = loadEmulatorProfile(name) as OsmandProfile;
    const profile = registry.get(name) as DeviceProfile;
    for (const sample of all) {
      const parsed = parseOsmandQuery(sampleToQuery(sample.deviceId, sample, emulator));
      if (!parsed.ok) throw new Error(parsed.message);
      const [p] = parsed.positions;
      const mapped = mapProfileFields(profile, (m) => ('attr' in m ? p!.attributes.get(m.attr) : undefined));
      expect(mapped.problems).toEqual([]);
      const built = buildTelemetry(
        {
          deviceId: parsed.identifier,
          tsMs: p!.tsMs as number,
          lat: p!.lat,
          lon: p!.lon,
          speedKmh: p!.speedKmh,
          headingDeg: p!.headingDeg,
          accuracyM: p!.accuracyM,
        },
        mapped,
        limits,
      );
      if (!built.ok) throw new Error(built.message);
      // Traccar Client sends whole seconds; speed goes as knots and comes back as km/h.
      expectSameReading(built.input, telemetryInputSchema.parse(sample), {
        speed: 1e-9,
        heading: 0,
        accuracy: 0,
        tacho: 1e-9,
        tsMs: 999,
      });
    }
  });
});
