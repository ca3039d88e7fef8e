import {
  type AvlCodec,
  type AvlRecord,
  CODEC_8,
  CODEC_8_EXTENDED,
  CODEC_16,
  codecName,
  IO_WIDTHS,
  type IoElement,
} from './avl-record.js';
import { crc16Ibm } from './crc16.js';

/**
 * The inverse of `decodeAvlData`: AVL records to the bytes a device sends. The gateway itself
 * only needs the ACKs; this exists for round-trip tests, tools and replaying captured data.
 * It refuses what the codec cannot carry (ids or counts too wide, NX elements outside Codec 8
 * Extended) rather than truncating silently.
 */

class Writer {
  private readonly parts: Buffer[] = [];

  uint(bytes: 1 | 2 | 4, value: number, what: string): void {
    if (!Number.isInteger(value) || value < 0 || value >= 2 ** (8 * bytes)) {
      throw new RangeError(`${what} ${value} does not fit in ${bytes} unsigned byte(s)`);
    }
    const b = Buffer.alloc(bytes);
    b.writeUIntBE(value, 0, bytes);
    this.parts.push(b);
  }

  int(bytes: 2 | 4, value: number, what: string): void {
    const limit = 2 ** (8 * bytes - 1);
    if (!Number.isInteger(value) || value < -limit || value >= limit) {
      throw new RangeError(`${what} ${value} does not fit in ${bytes} signed byte(s)`);
    }
    const b = Buffer.alloc(bytes);
    b.writeIntBE(value, 0, bytes);
    this.parts.push(b);
  }

  bigUint(bytes: 1 | 2 | 4 | 8, value: bigint, what: string): void {
    if (value < 0n || value >= 1n << BigInt(8 * bytes)) {
      throw new RangeError(`${what} ${value} does not fit in ${bytes} unsigned byte(s)`);
    }
    const b = Buffer.alloc(8);
    b.writeBigUInt64BE(value);
    this.parts.push(b.subarray(8 - bytes));
  }

  raw(bytes: Buffer): void {
    this.parts.push(bytes);
  }

  toBuffer(): Buffer {
    return Buffer.concat(this.parts);
  }
}

/** AVL data: codec id, record count, records, record count. */
export function encodeAvlData(codec: AvlCodec, records: readonly AvlRecord[]): Buffer {
  const w = new Writer();
  const wide = codec !== CODEC_8;
  const wideCounts = codec === CODEC_8_EXTENDED;
  w.uint(1, codec, 'codec id');
  w.uint(1, records.length, 'number of records');
  for (const record of records) {
    w.bigUint(8, BigInt(record.timestampMs), 'timestamp');
    w.uint(1, record.priority, 'priority');
    w.int(4, Math.round(record.gps.longitude * 1e7), 'longitude');
    w.int(4, Math.round(record.gps.latitude * 1e7), 'latitude');
    w.int(2, record.gps.altitudeM, 'altitude');
    w.uint(2, record.gps.angleDeg, 'angle');
    w.uint(1, record.gps.satellites, 'satellites');
    w.uint(2, record.gps.speedKmh, 'speed');
    w.uint(wide ? 2 : 1, record.eventIoId, 'event IO id');
    if (codec === CODEC_16) w.uint(1, record.generationType ?? 0, 'generation type');
    const variable = record.io.filter((e): e is Extract<IoElement, { kind: 'bytes' }> => e.kind === 'bytes');
    if (variable.length > 0 && codec !== CODEC_8_EXTENDED) {
      throw new RangeError(`${codecName(codec)} cannot carry variable-length IO elements`);
    }
    w.uint(wideCounts ? 2 : 1, record.io.length, 'number of IO elements');
    for (const width of IO_WIDTHS) {
      const group = record.io.filter((e) => e.kind === 'int' && e.bytes === width);
      w.uint(wideCounts ? 2 : 1, group.length, `number of ${width}-byte IO elements`);
      for (const e of group) {
        w.uint(wide ? 2 : 1, e.id, 'IO element id');
        if (e.kind === 'int') w.bigUint(width, e.value, `IO element ${e.id}`);
      }
    }
    if (codec === CODEC_8_EXTENDED) {
      w.uint(2, variable.length, 'number of variable-length IO elements');
      for (const e of variable) {
        w.uint(2, e.id, 'IO element id');
        w.uint(2, e.value.length, `length of IO element ${e.id}`);
        w.raw(e.value);
      }
    }
  }
  w.uint(1, records.length, 'number of records');
  return w.toBuffer();
}

/** A TCP AVL packet: zero preamble, data length, AVL data, CRC-16/IBM of the AVL data. */
export function encodeTcpFrame(codec: AvlCodec, records: readonly AvlRecord[]): Buffer {
  const data = encodeAvlData(codec, records);
  const frame = Buffer.alloc(8 + data.length + 4);
  frame.writeUInt32BE(data.length, 4);
  data.copy(frame, 8);
  frame.writeUInt32BE(crc16Ibm(data), 8 + data.length);
  return frame;
}

/** The opening message of a TCP session: the IMEI's length (2 bytes) and its ASCII digits. */
export function encodeImeiHandshake(imei: string): Buffer {
  const digits = Buffer.from(imei, 'ascii');
  const out = Buffer.alloc(2 + digits.length);
  out.writeUInt16BE(digits.length, 0);
  digits.copy(out, 2);
  return out;
}
