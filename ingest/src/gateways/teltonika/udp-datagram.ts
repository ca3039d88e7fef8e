import { decodeAvlData } from './avl-decoder.js';
import { encodeAvlData } from './avl-encoder.js';
import type { AvlCodec, AvlRecord } from './avl-record.js';
import { TeltonikaProtocolError } from './protocol-error.js';
import { imeiSchema } from './tcp-frame.js';

/**
 * Teltonika over UDP: every datagram stands alone and names its device.
 *
 *   length (2, bytes after this field) | packet id (2) | not usable byte (1) | AVL packet id (1)
 *   | IMEI length (2) | IMEI | AVL data (codec id .. number of data 2)
 *
 * There is no CRC (UDP has its own checksum). The server answers
 *
 *   length = 5 (2) | packet id (2) | not usable byte (1) | AVL packet id (1) | records accepted (1)
 *
 * and a device that gets no answer sends the datagram again.
 */

export interface UdpAvlDatagram {
  packetId: number;
  /** Echoed in the answer as received. */
  notUsableByte: number;
  avlPacketId: number;
  imei: string;
  codec: AvlCodec;
  records: AvlRecord[];
  /** Each record's bytes as received (see `AvlPacket.recordBytes`); not needed to encode. */
  recordBytes?: Buffer[];
}

const HEADER_BYTES = 2 + 2 + 1 + 1 + 2;

export function decodeUdpDatagram(datagram: Buffer): UdpAvlDatagram {
  if (datagram.length < HEADER_BYTES) {
    throw new TeltonikaProtocolError('MALFORMED_PACKET', `a datagram of ${datagram.length} bytes is too short`);
  }
  const length = datagram.readUInt16BE(0);
  if (length !== datagram.length - 2) {
    throw new TeltonikaProtocolError(
      'MALFORMED_PACKET',
      `length field says ${length} bytes follow, the datagram has ${datagram.length - 2}`,
    );
  }
  const packetId = datagram.readUInt16BE(2);
  const notUsableByte = datagram.readUInt8(4);
  const avlPacketId = datagram.readUInt8(5);
  const imeiLength = datagram.readUInt16BE(6);
  if (HEADER_BYTES + imeiLength > datagram.length) {
    throw new TeltonikaProtocolError('MALFORMED_PACKET', `IMEI length ${imeiLength} runs past the datagram`);
  }
  const imeiText = datagram.subarray(HEADER_BYTES, HEADER_BYTES + imeiLength).toString('latin1');
  const imei = imeiSchema.safeParse(imeiText);
  if (!imei.success) {
    throw new TeltonikaProtocolError('MALFORMED_PACKET', `IMEI ${JSON.stringify(imeiText)} is not 15 digits`);
  }
  const { codec, records, recordBytes } = decodeAvlData(datagram.subarray(HEADER_BYTES + imeiLength));
  return { packetId, notUsableByte, avlPacketId, imei: imei.data, codec, records, recordBytes };
}

export function encodeUdpAck(
  d: Pick<UdpAvlDatagram, 'packetId' | 'notUsableByte' | 'avlPacketId'>,
  accepted: number,
): Buffer {
  const ack = Buffer.alloc(7);
  ack.writeUInt16BE(5, 0);
  ack.writeUInt16BE(d.packetId, 2);
  ack.writeUInt8(d.notUsableByte, 4);
  ack.writeUInt8(d.avlPacketId, 5);
  ack.writeUInt8(accepted, 6);
  return ack;
}

/** For tests and tools: a datagram as a device sends it. */
export function encodeUdpDatagram(d: UdpAvlDatagram): Buffer {
  const data = encodeAvlData(d.codec, d.records);
  const imei = Buffer.from(d.imei, 'ascii');
  const out = Buffer.alloc(HEADER_BYTES + imei.length + data.length);
  out.writeUInt16BE(out.length - 2, 0);
  out.writeUInt16BE(d.packetId, 2);
  out.writeUInt8(d.notUsableByte, 4);
  out.writeUInt8(d.avlPacketId, 5);
  out.writeUInt16BE(imei.length, 6);
  imei.copy(out, HEADER_BYTES);
  data.copy(out, HEADER_BYTES + imei.length);
  return out;
}
