import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import {
  type AvlCodec,
  avlRecordToDecoded,
  buildTelemetry,
  CODEC_8,
  CODEC_8_EXTENDED,
  CODEC_16,
  crc16Ibm,
  type DeviceProfile,
  decodeAvlData,
  decodeUdpDatagram,
  encodeAvlData,
  encodeImeiHandshake,
  encodeTcpFrame,
  encodeUdpDatagram,
  mapProfileFields,
  type OsmAndParse,
  ProfileRegistry,
  parseOsmandJson,
  parseOsmandQuery,
  scanFrame,
  scanHandshake,
  TeltonikaProtocolError,
} from '../../src/gateways/index.js';
import { avlRecordArbitrary } from './support/avl-arbitraries.js';
import { mutated } from './support/byte-mutations.js';

/**
 * The device parsers as pure functions, 10,000 inputs each (seeded; a fixed number rather than as
 * many as fit in a few seconds, which on a loaded machine tested a few thousand): random bytes and valid messages damaged anywhere, headers and CRCs included. The
 * Teltonika decoders may only answer with a packet or a TeltonikaProtocolError, and what they
 * would acknowledge must be a well-formed message: re-encoding the decoded records gives back
 * exactly the bytes received, so no damaged byte can be acknowledged as data. The OsmAnd parser
 * never throws, and a position it passes on is one the telemetry builder either refuses with a
 * code or turns into a record within the limits. Complements teltonika-fuzz.test.ts, which
 * drives the gateway over real sockets.
 */

const SEED = 20_261_130;
const CASES = 10_000;
/** A safety net only: 10,000 inputs take 0.2–2 s on a quiet machine, under 40 s at a load of 20. */
const TIME_LIMIT_MS = 50_000;
const tried: Record<string, number> = {};

function fuzz<T>(name: string, input: fc.Arbitrary<T>, check: (value: T) => void): void {
  let n = 0;
  fc.assert(
    fc.property(input, (value) => {
      n++;
      check(value);
    }),
    { numRuns: CASES, seed: SEED, interruptAfterTimeLimit: TIME_LIMIT_MS },
  );
  tried[name] = n;
  // A time limit that cut a property to a handful of runs would make the suite pass by not testing.
  expect(n, `${name}: inputs tried before the time limit`).toBeGreaterThan(5_000);
}

afterAll(() => {
  const total = Object.values(tried).reduce((a, b) => a + b, 0);
  const each = Object.entries(tried)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  console.log(`fuzz: ${total} parser inputs (seed ${SEED}; ${each}), 0 crashes, 0 malformed acknowledged`);
});

/** Runs `fn`; a TeltonikaProtocolError is a refusal (undefined), any other error fails the property. */
function refusedOr<T>(fn: () => T): T | undefined {
  try {
    return fn();
  } catch (err) {
    if (err instanceof TeltonikaProtocolError) return undefined;
    throw err;
  }
}

const registry = ProfileRegistry.load();
const profilesOf = (protocol: DeviceProfile['protocol']) =>
  registry.names.map((n) => registry.get(n)).filter((p): p is DeviceProfile => p?.protocol === protocol);
const teltonikaProfiles = profilesOf('teltonika');
const osmandProfiles = profilesOf('osmand');
const limits = { receivedAt: new Date(), maxFutureSkewS: 300 };

/** What a record the pipeline stores must satisfy, whatever bytes it came from. */
function expectStorable(built: ReturnType<typeof buildTelemetry>): void {
  if (!built.ok) {
    expect(built.code).toMatch(/^[A-Z][A-Z0-9_]*$/);
    return;
  }
  const { lat, lon, ts } = built.input;
  expect(Math.abs(lat) <= 90 && Math.abs(lon) <= 180).toBe(true);
  expect(Number.isFinite(new Date(ts).getTime())).toBe(true);
}

const codec = fc.constantFrom<AvlCodec>(CODEC_8, CODEC_8_EXTENDED, CODEC_16);
const records = (c: AvlCodec) => fc.array(avlRecordArbitrary(c), { minLength: 1, maxLength: 3 });

/**
 * Valid messages are drawn once (seeded) into a pool and damaged from there: generating AVL
 * records with big integers for every case would spend the time budget on the generator.
 */
const POOL = 2_000;
function pooled<T>(arbitrary: fc.Arbitrary<T>): fc.Arbitrary<T> {
  return fc.constantFrom(...fc.sample(arbitrary, { numRuns: POOL, seed: SEED }));
}
const validAvl = pooled(codec.chain((c) => records(c).map((r) => encodeAvlData(c, r))));
const validFrame = pooled(codec.chain((c) => records(c).map((r) => encodeTcpFrame(c, r))));
const imei = fc.stringMatching(/^\d{15}$/);

/** A whole TCP frame around `data`, length and CRC right: damage inside the CRC's cover. */
function frameAround(data: Buffer): Buffer {
  const frame = Buffer.alloc(8 + data.length + 4);
  frame.writeUInt32BE(data.length, 4);
  data.copy(frame, 8);
  frame.writeUInt32BE(crc16Ibm(data), 8 + data.length);
  return frame;
}

/** The bytes the TCP session would acknowledge as one packet, and the packet, or undefined. */
function acknowledgedFrame(bytes: Buffer) {
  const scan = refusedOr(() => scanFrame(bytes, 1 << 16));
  if (scan?.kind !== 'frame' || !scan.crcOk) return undefined;
  const packet = refusedOr(() => decodeAvlData(Buffer.from(scan.data)));
  return packet && { packet, frame: bytes.subarray(0, scan.consumed) };
}

/** Every decoded record goes through each profile and the builder without an exception. */
function throughThePipeline(imeiText: string, packet: ReturnType<typeof decodeAvlData>): void {
  packet.records.forEach((record, i) => {
    for (const profile of teltonikaProfiles) {
      const decoded = avlRecordToDecoded(imeiText, record, profile, packet.recordBytes[i]);
      expectStorable(buildTelemetry(decoded.fix, decoded.mapped, limits));
    }
  });
}

describe('Teltonika TCP framing', () => {
  it('handshakes: an IMEI, "need more", or a refusal, never another error', () => {
    const handshake = fc.oneof(
      imei.map(encodeImeiHandshake),
      mutated(imei.map(encodeImeiHandshake)),
      fc.uint8Array({ maxLength: 40 }).map((b) => Buffer.from(b)),
    );
    fuzz('handshake', handshake, (bytes) => {
      const scan = refusedOr(() => scanHandshake(bytes));
      if (scan?.kind === 'imei') {
        // Accepted only as the exact message: length 15 and 15 digits.
        expect(encodeImeiHandshake(scan.imei).equals(bytes.subarray(0, scan.consumed))).toBe(true);
      }
    });
  });

  it('frames: damaged anywhere, or damaged under a recomputed CRC, never acknowledged unless well-formed', () => {
    const frame = fc.oneof(
      { weight: 1, arbitrary: validFrame },
      { weight: 4, arbitrary: mutated(validFrame) },
      // What the CRC cannot catch: a firmware that computes it over broken data.
      { weight: 4, arbitrary: mutated(validAvl).map(frameAround) },
      { weight: 1, arbitrary: fc.uint8Array({ maxLength: 600 }).map((b) => Buffer.from(b)) },
    );
    fuzz('tcp-frame', frame, (bytes) => {
      const acked = acknowledgedFrame(bytes);
      if (!acked) return;
      expect(acked.packet.records.length).toBeGreaterThan(0);
      expect(encodeTcpFrame(acked.packet.codec, acked.packet.records).equals(acked.frame)).toBe(true);
      throughThePipeline('350000000000501', acked.packet);
    });
  });
});

describe('Teltonika AVL decoder', () => {
  it('AVL data damaged anywhere: a packet that re-encodes to the same bytes, or a refusal', () => {
    const data = fc.oneof(
      { weight: 1, arbitrary: validAvl },
      { weight: 8, arbitrary: mutated(validAvl) },
      { weight: 1, arbitrary: fc.uint8Array({ maxLength: 400 }).map((b) => Buffer.from(b)) },
    );
    fuzz('avl-data', data, (bytes) => {
      const packet = refusedOr(() => decodeAvlData(bytes));
      if (!packet) return;
      expect(encodeAvlData(packet.codec, packet.records).equals(bytes)).toBe(true);
      // Each record's raw bytes (kept by the quarantine) are its own slice of the packet.
      expect(Buffer.concat([bytes.subarray(0, 2), ...packet.recordBytes, bytes.subarray(-1)]).equals(bytes)).toBe(true);
    });
  });
});

describe('Teltonika UDP datagrams', () => {
  const datagram = pooled(
    fc
      .record({
        packetId: fc.integer({ min: 0, max: 0xffff }),
        notUsableByte: fc.integer({ min: 0, max: 0xff }),
        avlPacketId: fc.integer({ min: 0, max: 0xff }),
        imei,
        codec,
      })
      .chain((d) => records(d.codec).map((r) => encodeUdpDatagram({ ...d, records: r }))),
  );
  /** A damaged datagram whose length field was set right again: UDP has no CRC to catch the rest. */
  const relengthed = mutated(datagram).map((b) => {
    if (b.length >= 2) b.writeUInt16BE(Math.min(0xffff, b.length - 2), 0);
    return b;
  });

  it('datagrams damaged anywhere: answered only when well-formed, never another error', () => {
    const input = fc.oneof(
      { weight: 1, arbitrary: datagram },
      { weight: 3, arbitrary: mutated(datagram) },
      { weight: 5, arbitrary: relengthed },
      { weight: 1, arbitrary: fc.uint8Array({ maxLength: 400 }).map((b) => Buffer.from(b)) },
    );
    fuzz('udp-datagram', input, (bytes) => {
      const d = refusedOr(() => decodeUdpDatagram(bytes));
      if (!d) return;
      expect(encodeUdpDatagram(d).equals(bytes)).toBe(true);
      throughThePipeline(d.imei, { codec: d.codec, records: d.records, recordBytes: d.recordBytes ?? [] });
    });
  });
});

describe('OsmAnd request parser', () => {
  /** A parse result's invariants, and the pipeline after it: a position never makes anything throw. */
  function checkParse(result: OsmAndParse): void {
    if (!result.ok) {
      expect(result.code).toMatch(/^[A-Z][A-Z0-9_]*$/);
      expect(typeof result.message).toBe('string');
      return;
    }
    expect(result.identifier.length).toBeGreaterThan(0);
    expect(result.identifier.length).toBeLessThanOrEqual(64);
    expect(result.positions.length).toBeGreaterThan(0);
    for (const p of result.positions) {
      expect(Number.isFinite(p.lat) && Number.isFinite(p.lon)).toBe(true);
      for (const profile of osmandProfiles) {
        const mapped = mapProfileFields(profile, (m) => p.attributes.get((m as { attr: string }).attr));
        // As the OsmAnd server builds the fix (no time sent: the time of receipt).
        const fix = {
          deviceId: result.identifier,
          tsMs: p.tsMs ?? limits.receivedAt.getTime(),
          lat: p.lat,
          lon: p.lon,
          speedKmh: p.speedKmh,
          headingDeg: p.headingDeg,
          accuracyM: p.accuracyM,
        };
        expectStorable(buildTelemetry(fix, mapped, limits));
      }
    }
  }

  const keys = fc.oneof(
    fc.constantFrom(
      'id',
      'deviceid',
      'timestamp',
      'lat',
      'lon',
      'location',
      'speed',
      'bearing',
      'heading',
      'accuracy',
      'altitude',
      'batt',
      'ignition',
      'door',
      'meter',
      'tariff',
      'fare',
      'trip',
      'passengers',
      'driverUniqueId',
      'hdop',
    ),
    fc.string({ maxLength: 12 }),
  );
  const number = fc.oneof(
    fc.double().map(String),
    fc.integer().map(String),
    fc.constantFrom('NaN', 'Infinity', '-1', '1e309', '0x10', '', ' 1 ', '.5', '-0', '1e-400', '9'.repeat(40)),
  );
  const values = fc.oneof(
    number,
    fc.constantFrom('-15.79,-47.88', '2026-11-30T13:05:00Z', '1764507900', '99999999999999999', 'true', 'ocupado'),
    fc.string({ maxLength: 80, unit: 'binary' }),
    fc.string({ maxLength: 80 }).map((s) => `${s}\u0000${s}`),
  );
  const valid = fc
    .record({ id: fc.stringMatching(/^[A-Za-z0-9-]{1,20}$/), lat: fc.double({ min: -90, max: 90, noNaN: true }) })
    .map(({ id, lat }) => `id=${id}&lat=${lat}&lon=-47.88&timestamp=1764507900&speed=12.5&bearing=90&accuracy=5`);
  const query = fc.oneof(
    { weight: 1, arbitrary: valid },
    {
      weight: 6,
      arbitrary: fc.tuple(valid, fc.array(fc.tuple(keys, values, fc.boolean()), { minLength: 1, maxLength: 6 })).map(
        ([base, pairs]) =>
          // Added parameters go first (the first of a repeated parameter counts), encoded or raw.
          `${pairs.map(([k, v, encode]) => (encode ? `${encodeURIComponent(k)}=${encodeURIComponent(v)}` : `${k}=${v}`)).join('&')}&${base}`,
      ),
    },
    { weight: 2, arbitrary: fc.string({ maxLength: 300, unit: 'binary' }) },
    { weight: 1, arbitrary: mutated(valid.map((s) => Buffer.from(s))).map((b) => b.toString('latin1')) },
  );

  it('query strings: a position, or a refusal with a code, never an exception', () => {
    fuzz('osmand-query', query, (text) => checkParse(parseOsmandQuery(new URLSearchParams(text))));
  });

  const location = fc.record({
    timestamp: fc.oneof(fc.constant('2026-11-30T13:05:00.000Z'), fc.string({ maxLength: 30 })),
    coords: fc.record({
      latitude: fc.double({ min: -90, max: 90, noNaN: true }),
      longitude: fc.double({ min: -180, max: 180, noNaN: true }),
      speed: fc.double({ min: -1, max: 60, noNaN: true }),
      heading: fc.double({ min: -1, max: 360, noNaN: true }),
      accuracy: fc.double({ min: 0, max: 100, noNaN: true }),
    }),
    is_moving: fc.boolean(),
    battery: fc.record({ level: fc.double({ min: 0, max: 1, noNaN: true }), is_charging: fc.boolean() }),
    extras: fc.dictionary(keys, fc.oneof(values, fc.jsonValue({ maxDepth: 2 })), { maxKeys: 5 }),
  });
  const body = pooled(
    fc.record({
      device_id: fc.stringMatching(/^[A-Za-z0-9-]{1,20}$/),
      location: fc.oneof(location, fc.array(location, { minLength: 1, maxLength: 3 })),
    }),
  );
  /** Where a near-valid body is damaged: one of its members replaced by any JSON value, or removed. */
  const paths = [
    ['device_id'],
    ['location'],
    ['location', 'timestamp'],
    ['location', 'coords'],
    ['location', 'coords', 'latitude'],
    ['location', 'coords', 'longitude'],
    ['location', 'coords', 'speed'],
    ['location', 'coords', 'accuracy'],
    ['location', 'battery', 'level'],
    ['location', 'extras'],
    ['location', 'extras', 'meter'],
  ];
  const damaged = fc
    .tuple(
      body,
      fc.array(fc.tuple(fc.constantFrom(...paths), fc.option(fc.jsonValue({ maxDepth: 2 }), { nil: undefined })), {
        minLength: 1,
        maxLength: 3,
      }),
    )
    .map(([b, edits]) => {
      const out = JSON.parse(JSON.stringify(b)) as Record<string, unknown>;
      for (const [path, value] of edits) {
        let target: unknown = out;
        for (const key of path.slice(0, -1)) {
          target = Array.isArray(target) ? target[0] : (target as Record<string, unknown> | null)?.[key];
          if (Array.isArray(target)) target = target[0];
        }
        if (target && typeof target === 'object' && !Array.isArray(target)) {
          const last = path[path.length - 1] as string;
          if (value === undefined) delete (target as Record<string, unknown>)[last];
          else (target as Record<string, unknown>)[last] = value;
        }
      }
      return out;
    });

  it('JSON bodies: a position, or a refusal with a code, never an exception', { timeout: 90_000 }, () => {
    const input = fc.oneof(
      { weight: 1, arbitrary: body },
      { weight: 6, arbitrary: damaged },
      { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
    );
    // The zod schemas make this parser the slowest (~80 µs a body): it gets a longer budget.
    fuzz('osmand-json', input, (value) => checkParse(parseOsmandJson(value)));
  });
});
