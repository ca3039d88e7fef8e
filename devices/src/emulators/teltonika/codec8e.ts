/**
 * The device side of Teltonika's Codec 8 Extended over TCP, written from Teltonika's "Data
 * Sending Protocols" documentation independently of the gateway's decoder: an emulator that
 * shared the server's code could only ever agree with it.
 *
 *   IMEI message:  length (2) | IMEI (ASCII)                 → server answers 01 (accepted) or 00
 *   AVL packet:    00000000 | data length (4) | 8E | n | records | n | CRC-16/IBM (4)
 *                                                               → server answers n (4 bytes) when stored
 */

export type EmulatedIo =
  | { id: number; kind: 'int'; bytes: 1 | 2 | 4 | 8; value: bigint }
  | { id: number; kind: 'bytes'; value: Buffer };

export interface EmulatedAvlRecord {
  timestampMs: number;
  /** 0 low, 1 high, 2 panic. */
  priority: 0 | 1 | 2;
  latitude: number;
  longitude: number;
  altitudeM: number;
  angleDeg: number;
  satellites: number;
  speedKmh: number;
  eventIoId: number;
  io: EmulatedIo[];
}

const CODEC_8_EXTENDED = 0x8e;
const WIDTHS = [1, 2, 4, 8] as const;

/** CRC-16/IBM, bit by bit: polynomial 0xA001 (0x8005 reflected), initial value 0. */
export function crc16(data: Uint8Array): number {
  let crc = 0;
  for (const byte of data) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? (crc >>> 1) ^ 0xa001 : crc >>> 1;
  }
  return crc;
}

export function imeiMessage(imei: string): Buffer {
  const out = Buffer.alloc(2 + imei.length);
  out.writeUInt16BE(imei.length, 0);
  out.write(imei, 2, 'ascii');
  return out;
}

function u(bytes: number, value: number | bigint): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(BigInt.asUintN(64, BigInt(value)));
  return b.subarray(8 - bytes);
}

function record(r: EmulatedAvlRecord): Buffer[] {
  const ints = (w: number) =>
    r.io.filter((e): e is Extract<EmulatedIo, { kind: 'int' }> => e.kind === 'int' && e.bytes === w);
  const nx = r.io.filter((e): e is Extract<EmulatedIo, { kind: 'bytes' }> => e.kind === 'bytes');
  const parts = [
    u(8, r.timestampMs),
    u(1, r.priority),
    u(4, Math.round(r.longitude * 1e7)),
    u(4, Math.round(r.latitude * 1e7)),
    u(2, r.altitudeM),
    u(2, r.angleDeg),
    u(1, r.satellites),
    u(2, r.speedKmh),
    u(2, r.eventIoId),
    u(2, r.io.length),
  ];
  for (const w of WIDTHS) {
    const group = ints(w);
    parts.push(u(2, group.length));
    for (const e of group) parts.push(u(2, e.id), u(w, e.value));
  }
  parts.push(u(2, nx.length));
  for (const e of nx) parts.push(u(2, e.id), u(2, e.value.length), e.value);
  return parts;
}

export function avlPacket(records: readonly EmulatedAvlRecord[]): Buffer {
  if (records.length < 1 || records.length > 255) throw new RangeError(`${records.length} records in one packet`);
  const data = Buffer.concat([
    u(1, CODEC_8_EXTENDED),
    u(1, records.length),
    ...records.flatMap(record),
    u(1, records.length),
  ]);
  return Buffer.concat([u(4, 0), u(4, data.length), data, u(4, crc16(data))]);
}
