import fc from 'fast-check';
import {
  type AvlCodec,
  type AvlRecord,
  CODEC_8,
  CODEC_8_EXTENDED,
  CODEC_16,
  type IoElement,
} from '../../../src/gateways/index.js';

/** Random AVL records that a codec can carry, IO elements in the order the wire puts them. */
export function avlRecordArbitrary(codec: AvlCodec): fc.Arbitrary<AvlRecord> {
  const maxId = codec === CODEC_8 ? 0xff : 0xffff;
  const ints = (bytes: 1 | 2 | 4 | 8) =>
    fc.array(
      fc.record({
        id: fc.integer({ min: 0, max: maxId }),
        kind: fc.constant('int' as const),
        bytes: fc.constant(bytes),
        value: fc.bigInt({ min: 0n, max: (1n << BigInt(bytes * 8)) - 1n }),
      }),
      { maxLength: 4 },
    );
  const variable =
    codec === CODEC_8_EXTENDED
      ? fc.array(
          fc.record({
            id: fc.integer({ min: 0, max: 0xffff }),
            kind: fc.constant('bytes' as const),
            value: fc.uint8Array({ maxLength: 24 }).map((a) => Buffer.from(a)),
          }),
          { maxLength: 3 },
        )
      : fc.constant([]);
  const io = fc
    .tuple(ints(1), ints(2), ints(4), ints(8), variable)
    .map(([a, b, c, d, x]): IoElement[] => [...a, ...b, ...c, ...d, ...x]);
  return fc
    .record({
      timestampMs: fc.integer({ min: 0, max: 2 ** 45 }),
      priority: fc.integer({ min: 0, max: 2 }),
      gps: fc.record({
        longitude: fc.integer({ min: -1_800_000_000, max: 1_800_000_000 }).map((n) => n / 1e7),
        latitude: fc.integer({ min: -900_000_000, max: 900_000_000 }).map((n) => n / 1e7),
        altitudeM: fc.integer({ min: -32_768, max: 32_767 }),
        angleDeg: fc.integer({ min: 0, max: 360 }),
        satellites: fc.integer({ min: 0, max: 255 }),
        speedKmh: fc.integer({ min: 0, max: 0xffff }),
      }),
      eventIoId: fc.integer({ min: 0, max: maxId }),
      generationType: fc.integer({ min: 0, max: 7 }),
      io,
    })
    .map(({ generationType, ...r }): AvlRecord => (codec === CODEC_16 ? { ...r, generationType } : r));
}
