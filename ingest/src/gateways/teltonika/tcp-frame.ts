import { z } from 'zod';
import { crc16Ibm } from './crc16.js';
import { TeltonikaProtocolError } from './protocol-error.js';

/**
 * Framing of Teltonika's TCP session: the IMEI handshake, then AVL packets
 * `00000000 | data length (4) | AVL data | CRC (4)`, each answered with the number of records
 * accepted (4 bytes, big-endian). These functions only look at bytes already received and say
 * how many a complete message took; the session decides when to read more.
 */

/** An IMEI: 15 decimal digits (14 + the Luhn check digit). */
export const imeiSchema = z.string().regex(/^\d{15}$/, 'an IMEI of 15 digits');
const IMEI_LENGTH = 15;

const HEADER_BYTES = 8;
const CRC_BYTES = 4;
/** Codec id, one record count and the other: a packet cannot be shorter. */
const MIN_DATA_LENGTH = 3;
/** Sent by some firmware between packets to keep the link open; it needs no answer. */
const KEEP_ALIVE_BYTE = 0xff;

/** Frame overhead around the AVL data. */
export const FRAME_OVERHEAD = HEADER_BYTES + CRC_BYTES;

export type HandshakeScan = { kind: 'incomplete' } | { kind: 'imei'; imei: string; consumed: number };

/** The IMEI message, once complete. Anything that cannot become one is refused at the first wrong byte. */
export function scanHandshake(buf: Buffer): HandshakeScan {
  if (buf.length < 2) return { kind: 'incomplete' };
  const length = buf.readUInt16BE(0);
  if (length !== IMEI_LENGTH) {
    throw new TeltonikaProtocolError('BAD_HANDSHAKE', `IMEI length ${length} announced, 15 expected`);
  }
  const available = buf.subarray(2, Math.min(buf.length, 2 + length)).toString('latin1');
  if (!/^\d*$/.test(available)) {
    throw new TeltonikaProtocolError('BAD_HANDSHAKE', `IMEI ${JSON.stringify(available)} is not decimal digits`);
  }
  if (buf.length < 2 + length) return { kind: 'incomplete' };
  const imei = imeiSchema.parse(available);
  return { kind: 'imei', imei, consumed: 2 + length };
}

export type FrameScan =
  | { kind: 'incomplete' /** Bytes the whole frame needs, when the header is in. */; frameBytes?: number }
  | { kind: 'keep-alive'; consumed: 1 }
  | { kind: 'frame'; consumed: number; data: Buffer; crcOk: boolean; crcReceived: number; crcComputed: number };

/**
 * The next message of an open session. Refuses a stream that lost its framing (no zero preamble)
 * and a declared length beyond `maxDataLength` at once, before waiting for the bytes.
 */
export function scanFrame(buf: Buffer, maxDataLength: number): FrameScan {
  if (buf.length === 0) return { kind: 'incomplete' };
  if (buf[0] === KEEP_ALIVE_BYTE) return { kind: 'keep-alive', consumed: 1 };
  for (let i = 0; i < Math.min(4, buf.length); i++) {
    if (buf[i] !== 0) {
      throw new TeltonikaProtocolError(
        'BAD_PREAMBLE',
        `a packet must start with four zero bytes; got ${buf.subarray(0, Math.min(4, buf.length)).toString('hex')}`,
      );
    }
  }
  if (buf.length < HEADER_BYTES) return { kind: 'incomplete' };
  const dataLength = buf.readUInt32BE(4);
  if (dataLength > maxDataLength) {
    throw new TeltonikaProtocolError(
      'FRAME_TOO_LARGE',
      `data length ${dataLength} announced, at most ${maxDataLength} accepted`,
    );
  }
  if (dataLength < MIN_DATA_LENGTH) {
    throw new TeltonikaProtocolError('MALFORMED_PACKET', `data length ${dataLength} is too short for any packet`);
  }
  const frameBytes = HEADER_BYTES + dataLength + CRC_BYTES;
  if (buf.length < frameBytes) return { kind: 'incomplete', frameBytes };
  const data = buf.subarray(HEADER_BYTES, HEADER_BYTES + dataLength);
  // The CRC field is 4 bytes with the CRC-16 in the low two: the high two must be zero too.
  const crcReceived = buf.readUInt32BE(HEADER_BYTES + dataLength);
  const crcComputed = crc16Ibm(data);
  return { kind: 'frame', consumed: frameBytes, data, crcOk: crcReceived === crcComputed, crcReceived, crcComputed };
}

/** The answer to an AVL packet: how many records the server took, 4 bytes big-endian. */
export function encodeRecordCountAck(count: number): Buffer {
  const ack = Buffer.alloc(4);
  ack.writeUInt32BE(count);
  return ack;
}

export const HANDSHAKE_ACCEPTED = Buffer.from([0x01]);
export const HANDSHAKE_REFUSED = Buffer.from([0x00]);
