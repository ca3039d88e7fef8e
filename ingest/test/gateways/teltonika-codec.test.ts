import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type AvlRecord,
  CODEC_8,
  CODEC_8_EXTENDED,
  CODEC_16,
  crc16Ibm,
  decodeAvlData,
  decodeUdpDatagram,
  encodeAvlData,
  encodeImeiHandshake,
  encodeTcpFrame,
  encodeUdpAck,
  encodeUdpDatagram,
  type IoElement,
  scanFrame,
  scanHandshake,
  TeltonikaProtocolError,
} from '../../src/gateways/index.js';
import { avlRecordArbitrary } from './support/avl-arbitraries.js';

/**
 * The codec against Teltonika's "Data Sending Protocols" documentation: the examples' hex is
 * typed in below with the values the documentation gives for them (times in GMT, IO element ids
 * and values), not values read back from this decoder.
 */

const hex = (s: string) => Buffer.from(s.replace(/\s+/g, ''), 'hex');

/** A TCP frame's AVL data, after the CRC has been checked. */
function tcpData(frameHex: string): Buffer {
  const scan = scanFrame(hex(frameHex), 1 << 20);
  if (scan.kind !== 'frame') throw new Error(`not a complete frame: ${scan.kind}`);
  expect(scan.crcOk).toBe(true);
  return Buffer.from(scan.data);
}

const int = (id: number, bytes: 1 | 2 | 4 | 8, value: number | bigint): IoElement => ({
  id,
  kind: 'int',
  bytes,
  value: BigInt(value),
});

const zeroGps = { longitude: 0, latitude: 0, altitudeM: 0, angleDeg: 0, satellites: 0, speedKmh: 0 };

describe('Teltonika documentation examples', () => {
  it('Codec 8, first example: one record, IO elements of every width, CRC 0xC7CF', () => {
    const frame =
      '000000000000003608010000016B40D8EA30010000000000000000000000000000000105021503010101425E0F01F10000601A014E0000000000000000010000C7CF';
    expect(crc16Ibm(tcpData(frame))).toBe(0xc7cf);
    const packet = decodeAvlData(tcpData(frame));
    expect(packet.codec).toBe(CODEC_8);
    expect(packet.records).toHaveLength(1);
    const [r] = packet.records;
    // "GMT: Monday, June 10, 2019 10:04:46 AM", priority 1, no GPS data.
    expect(new Date(r!.timestampMs).toISOString()).toBe('2019-06-10T10:04:46.000Z');
    expect(r!.priority).toBe(1);
    expect(r!.gps).toEqual(zeroGps);
    expect(r!.eventIoId).toBe(1);
    expect(r!.io).toEqual([
      int(0x15, 1, 3),
      int(0x01, 1, 1),
      int(0x42, 2, 0x5e0f),
      int(0xf1, 4, 0x601a),
      int(0x4e, 8, 0),
    ]);
  });

  it('Codec 8, second example: 1-, 2-byte elements only', () => {
    const frame =
      '000000000000002808010000016B40D9AD80010000000000000000000000000000000103021503010101425E100000010000F22A';
    const [r] = decodeAvlData(tcpData(frame)).records;
    expect(new Date(r!.timestampMs).toISOString()).toBe('2019-06-10T10:05:36.000Z');
    expect(r!.io).toEqual([int(0x15, 1, 3), int(0x01, 1, 1), int(0x42, 2, 0x5e10)]);
  });

  it('Codec 8, third example: two records in one packet', () => {
    const frame =
      '000000000000004308020000016B40D57B480100000000000000000000000000000001010101000000000000016B40D5C198010000000000000000000000000000000101010101000000020000252C';
    const packet = decodeAvlData(tcpData(frame));
    expect(packet.records.map((r) => new Date(r.timestampMs).toISOString())).toEqual([
      '2019-06-10T10:01:01.000Z',
      '2019-06-10T10:01:19.000Z',
    ]);
    expect(packet.records.map((r) => r.io)).toEqual([[int(1, 1, 0)], [int(1, 1, 1)]]);
  });

  it('Codec 8 Extended example: 2-byte ids and counts, two 8-byte elements, no NX', () => {
    const frame =
      '000000000000004A8E010000016B412CEE000100000000000000000000000000000000010005000100010100010011001D00010010015E2C880002000B000000003544C87A000E000000001DD7E06A00000100002994';
    const packet = decodeAvlData(tcpData(frame));
    expect(packet.codec).toBe(CODEC_8_EXTENDED);
    const [r] = packet.records;
    expect(new Date(r!.timestampMs).toISOString()).toBe('2019-06-10T11:36:32.000Z');
    expect(r!.eventIoId).toBe(1);
    expect(r!.io).toEqual([
      int(0x0001, 1, 0x01),
      int(0x0011, 2, 0x001d),
      int(0x0010, 4, 0x015e2c88),
      int(0x000b, 8, 0x3544c87a),
      int(0x000e, 8, 0x1dd7e06a),
    ]);
  });

  it('the IMEI handshake of the documentation: 000F + "356307042441013"', () => {
    const scan = scanHandshake(hex('000F333536333037303432343431303133'));
    expect(scan).toEqual({ kind: 'imei', imei: '356307042441013', consumed: 17 });
    expect(encodeImeiHandshake('356307042441013').toString('hex').toUpperCase()).toBe(
      '000F333536333037303432343431303133',
    );
  });

  it('UDP, Codec 8: the datagram and the answer 0005CAFE010501 of the documentation', () => {
    const d = decodeUdpDatagram(
      hex(
        '003DCAFE0105000F33353230393330383634303336353508010000016B4F815B30010000000000000000000000000000000103021503010101425DBC000001',
      ),
    );
    expect(d).toMatchObject({ packetId: 0xcafe, notUsableByte: 0x01, avlPacketId: 0x05, imei: '352093086403655' });
    expect(new Date(d.records[0]!.timestampMs).toISOString()).toBe('2019-06-13T06:23:26.000Z');
    expect(d.records[0]!.io).toEqual([int(0x15, 1, 3), int(0x01, 1, 1), int(0x42, 2, 0x5dbc)]);
    expect(encodeUdpAck(d, d.records.length).toString('hex').toUpperCase()).toBe('0005CAFE010501');
  });

  it('UDP, Codec 8 Extended: answered 0005CAFE010701', () => {
    const d = decodeUdpDatagram(
      hex(
        '005FCAFE0107000F3335323039333038363430333635358E010000016B4F831C680100000000000000000000000000000000010005000100010100010011009D00010010015E2C880002000B000000003544C87A000E000000001DD7E06A000001',
      ),
    );
    expect(d.codec).toBe(CODEC_8_EXTENDED);
    expect(new Date(d.records[0]!.timestampMs).toISOString()).toBe('2019-06-13T06:25:21.000Z');
    expect(d.records[0]!.io[1]).toEqual(int(0x11, 2, 0x9d));
    expect(encodeUdpAck(d, 1).toString('hex').toUpperCase()).toBe('0005CAFE010701');
  });
});

describe('positions and variable-length elements', () => {
  it('reads signed 1e-7 degree coordinates: south and west are negative', () => {
    const record: AvlRecord = {
      timestampMs: Date.UTC(2026, 10, 30, 13, 5, 0),
      priority: 0,
      gps: { longitude: -47.8822, latitude: -15.7942, altitudeM: 1172, angleDeg: 90, satellites: 11, speedKmh: 33 },
      eventIoId: 0,
      io: [],
    };
    const data = encodeAvlData(CODEC_8, [record]);
    // Longitude -47.8822° = -478822000 = 2^32 − 478822000 = 0xE375C190 in two's complement, right after timestamp and priority.
    expect(data.subarray(11, 15).toString('hex')).toBe('e375c190');
    expect(decodeAvlData(data).records[0]?.gps).toEqual(record.gps);
  });

  it('decodes NX elements of Codec 8 Extended, including an empty one', () => {
    const record: AvlRecord = {
      timestampMs: 1_780_000_000_000,
      priority: 1,
      gps: zeroGps,
      eventIoId: 0x0181,
      io: [
        int(239, 1, 1),
        { id: 12003, kind: 'bytes', value: Buffer.from('DF-0001-T00012') },
        { id: 12004, kind: 'bytes', value: Buffer.alloc(0) },
      ],
    };
    expect(decodeAvlData(encodeAvlData(CODEC_8_EXTENDED, [record])).records).toEqual([record]);
  });

  it('refuses what Codec 8 cannot carry instead of truncating', () => {
    const record: AvlRecord = { timestampMs: 0, priority: 0, gps: zeroGps, eventIoId: 0, io: [int(256, 1, 1)] };
    expect(() => encodeAvlData(CODEC_8, [record])).toThrow(RangeError);
    expect(() =>
      encodeAvlData(CODEC_8, [{ ...record, io: [{ id: 1, kind: 'bytes', value: Buffer.from('x') }] }]),
    ).toThrow(/variable-length/);
  });
});

describe('malformed input is refused with a reason', () => {
  const valid = encodeTcpFrame(CODEC_8, [
    { timestampMs: 1_560_161_086_000, priority: 1, gps: zeroGps, eventIoId: 1, io: [int(1, 1, 1), int(66, 2, 12000)] },
  ]);

  const reason = (fn: () => unknown): string => {
    try {
      fn();
    } catch (err) {
      if (err instanceof TeltonikaProtocolError) return err.code;
      throw err;
    }
    return 'accepted';
  };

  it('a flipped bit fails the CRC', () => {
    const bad = Buffer.from(valid);
    bad[20] = (bad[20] as number) ^ 0x04;
    const scan = scanFrame(bad, 1 << 20);
    expect(scan.kind === 'frame' && scan.crcOk).toBe(false);
  });

  it('differing record counts, a wrong IO total, trailing bytes, truncation, unknown codecs and priorities', () => {
    const data = Buffer.from(valid.subarray(8, valid.length - 4));
    const mutate = (at: number, value: number) => {
      const copy = Buffer.from(data);
      copy[at] = value;
      return copy;
    };
    expect(reason(() => decodeAvlData(mutate(data.length - 1, 2)))).toBe('MALFORMED_PACKET');
    expect(reason(() => decodeAvlData(mutate(27, 9)))).toBe('MALFORMED_PACKET');
    expect(reason(() => decodeAvlData(Buffer.concat([data, Buffer.from([0])])))).toBe('MALFORMED_PACKET');
    expect(reason(() => decodeAvlData(data.subarray(0, data.length - 3)))).toBe('MALFORMED_PACKET');
    expect(reason(() => decodeAvlData(mutate(0, 0x0c)))).toBe('UNSUPPORTED_CODEC');
    expect(reason(() => decodeAvlData(mutate(0, 0x04)))).toBe('UNSUPPORTED_CODEC');
    expect(reason(() => decodeAvlData(mutate(10, 7)))).toBe('MALFORMED_PACKET');
    expect(reason(() => decodeAvlData(mutate(1, 0)))).toBe('MALFORMED_PACKET');
  });

  it('a lost preamble and an oversized length are refused before the bytes arrive', () => {
    expect(reason(() => scanFrame(hex('0001'), 1024))).toBe('BAD_PREAMBLE');
    expect(reason(() => scanFrame(hex('0000000000100000'), 1024))).toBe('FRAME_TOO_LARGE');
    expect(scanFrame(hex('000000000000004a8e01'), 1024)).toEqual({ kind: 'incomplete', frameBytes: 86 });
    expect(scanFrame(hex('ff'), 1024)).toEqual({ kind: 'keep-alive', consumed: 1 });
  });

  it('a handshake that is not 15 digits is refused at the first wrong byte', () => {
    expect(reason(() => scanHandshake(hex('0010')))).toBe('BAD_HANDSHAKE');
    expect(reason(() => scanHandshake(hex('000F333541')))).toBe('BAD_HANDSHAKE');
    expect(scanHandshake(hex('000F3335'))).toEqual({ kind: 'incomplete' });
  });
});

describe('round trips', () => {
  for (const codec of [CODEC_8, CODEC_8_EXTENDED, CODEC_16] as const) {
    it(`encode → decode is the identity for ${codec.toString(16)}`, () => {
      fc.assert(
        fc.property(fc.array(avlRecordArbitrary(codec), { minLength: 1, maxLength: 5 }), (records) => {
          const frame = encodeTcpFrame(codec, records);
          const scan = scanFrame(frame, 1 << 20);
          expect(scan.kind === 'frame' && scan.crcOk).toBe(true);
          if (scan.kind !== 'frame') return;
          const { recordBytes, ...packet } = decodeAvlData(Buffer.from(scan.data));
          expect(packet).toEqual({ codec, records });
          expect(recordBytes).toHaveLength(records.length);
          // And over UDP.
          const datagram = encodeUdpDatagram({
            packetId: 0xcafe,
            notUsableByte: 1,
            avlPacketId: 7,
            imei: '352093086403655',
            codec,
            records,
          });
          expect(decodeUdpDatagram(datagram).records).toEqual(records);
        }),
        { numRuns: 150 },
      );
    });
  }
});
