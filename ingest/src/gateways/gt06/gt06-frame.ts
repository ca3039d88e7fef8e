import { crcItu } from './crc-itu.js';
import { Gt06ProtocolError } from './gt06-error.js';

/**
 * Framing of the GT06 (Concox) TCP stream, the frame decoder of Traccar's pipeline:
 *
 *   short:  78 78 | length (1) | protocol (1) | content | serial (2) | CRC-ITU (2) | 0D 0A
 *   long:   79 79 | length (2) | protocol (1) | content | serial (2) | CRC-ITU (2) | 0D 0A
 *
 * `length` counts protocol number → CRC; the CRC covers length → serial. These functions only
 * look at bytes already received and say how many a complete packet took; the session decides
 * when to read more. A stream whose start or stop bits are not where the lengths put them has lost
 * its framing: there is no safe way to find the next packet, so that is an error (the session
 * closes and the device reconnects and logs in again); a CRC mismatch inside intact framing is
 * only that packet's problem.
 */

const START_SHORT = 0x78;
const START_LONG = 0x79;
/** Protocol number, serial and CRC: the least a length can count. */
const MIN_LENGTH = 5;
const STOP = 0x0d0a;

export interface Gt06Packet {
  /** Bytes of the stream the packet took, start to stop bits. */
  consumed: number;
  /** Sent with 79 79 and a 2-byte length: the answer uses the same form. */
  long: boolean;
  protocol: number;
  /** Between the protocol number and the serial: a view into the receive buffer. */
  content: Buffer;
  serial: number;
  crcOk: boolean;
  crcReceived: number;
  crcComputed: number;
}

export type Gt06Scan = { kind: 'incomplete' } | ({ kind: 'packet' } & Gt06Packet);

/**
 * The next packet at the start of `buf`. Refuses a stream that does not start with start bits,
 * and a declared length beyond `maxPacketBytes` at once, before waiting for the bytes.
 */
export function scanGt06Packet(buf: Buffer, maxPacketBytes: number): Gt06Scan {
  if (buf.length === 0) return { kind: 'incomplete' };
  const first = buf[0] as number;
  if ((first !== START_SHORT && first !== START_LONG) || (buf.length >= 2 && buf[1] !== first)) {
    throw new Gt06ProtocolError(
      'BAD_START_BITS',
      `a packet must start with 7878 or 7979; got ${buf.subarray(0, Math.min(2, buf.length)).toString('hex')}`,
    );
  }
  const long = first === START_LONG;
  const lengthBytes = long ? 2 : 1;
  if (buf.length < 2 + lengthBytes) return { kind: 'incomplete' };
  const length = long ? buf.readUInt16BE(2) : (buf[2] as number);
  if (length < MIN_LENGTH) {
    throw new Gt06ProtocolError('BAD_LENGTH', `length ${length} leaves no room for protocol, serial and CRC`);
  }
  const total = 2 + lengthBytes + length + 2;
  if (total > maxPacketBytes) {
    throw new Gt06ProtocolError(
      'BAD_LENGTH',
      `a packet of ${total} bytes announced, at most ${maxPacketBytes} accepted`,
    );
  }
  if (buf.length < total) return { kind: 'incomplete' };
  if (buf.readUInt16BE(total - 2) !== STOP) {
    throw new Gt06ProtocolError(
      'BAD_STOP_BITS',
      `no 0D0A where length ${length} puts the end of the packet (got ${buf.subarray(total - 2, total).toString('hex')})`,
    );
  }
  const bodyStart = 2 + lengthBytes;
  const crcAt = total - 4;
  const crcReceived = buf.readUInt16BE(crcAt);
  const crcComputed = crcItu(buf.subarray(2, crcAt));
  return {
    kind: 'packet',
    consumed: total,
    long,
    protocol: buf[bodyStart] as number,
    content: buf.subarray(bodyStart + 1, crcAt - 2),
    serial: buf.readUInt16BE(crcAt - 2),
    crcOk: crcReceived === crcComputed,
    crcReceived,
    crcComputed,
  };
}

/**
 * A packet from its parts, in the short form when it fits: the server's answers, and the tests'
 * and benchmark's devices.
 */
export function encodeGt06Packet(protocol: number, content: Uint8Array, serial: number, long = false): Buffer {
  const length = 1 + content.length + 2 + 2;
  const useLong = long || length > 0xff;
  const head = useLong
    ? Buffer.from([START_LONG, START_LONG, length >>> 8, length & 0xff])
    : Buffer.from([START_SHORT, START_SHORT, length]);
  const serialBytes = Buffer.from([(serial >>> 8) & 0xff, serial & 0xff]);
  const body = Buffer.concat([head, Buffer.from([protocol]), content, serialBytes]);
  const crc = crcItu(body.subarray(2));
  return Buffer.concat([body, Buffer.from([crc >>> 8, crc & 0xff, 0x0d, 0x0a])]);
}

/**
 * The server's answer to a packet it has taken: its protocol number and serial echoed, no content
 * (`78 78 05 <protocol> <serial> <CRC> 0D 0A`), in the form the packet came in.
 */
export function encodeGt06Response(protocol: number, serial: number, long = false): Buffer {
  return encodeGt06Packet(protocol, Buffer.alloc(0), serial, long);
}
