/**
 * The device side of the GT06 (Concox) binary protocol, written from Concox's public "GT06
 * communication protocol" documents independently of the gateway's decoder: an emulator that
 * shared the server's code could only ever agree with it.
 *
 *   packet:   78 78 | length (1) | protocol (1) | content | serial (2) | CRC-ITU (2) | 0D 0A
 *             (79 79 and a 2-byte length for long packets; length counts protocol → CRC)
 *   login 01:          IMEI in BCD (8 bytes, a leading 0 nibble)
 *   heartbeat 13:      terminal info | voltage level | GSM signal | alarm | language
 *   location 22:       GPS block | LBS (MCC 2, MNC 1, LAC 2, cell 3) | ACC | upload mode | re-upload
 *   alarm 26, status 16: GPS block | LBS length, LBS | terminal info | voltage | GSM | alarm | language
 *   GPS block:         date-time (YY MM DD hh mm ss, UTC) | GPS info (length nibble, satellites
 *                      nibble) | latitude, longitude (4 each, degrees × 1 800 000, unsigned) |
 *                      speed (km/h, 1) | course and status (2)
 *
 * The server answers each packet it has taken with `78 78 05 <protocol> <serial> <CRC> 0D 0A`,
 * echoing the packet's serial: that echo is the device's only proof of delivery.
 */

export const GT06_PROTOCOL = {
  login: 0x01,
  heartbeat: 0x13,
  location: 0x22,
  status: 0x16,
  alarm: 0x26,
} as const;

/** CRC-ITU as GT06 uses it (CRC-16/X-25): polynomial 0x1021 reflected (0x8408), initial 0xFFFF, final XOR 0xFFFF. */
export function crcItu(data: Uint8Array): number {
  let crc = 0xffff;
  for (const byte of data) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? (crc >>> 1) ^ 0x8408 : crc >>> 1;
  }
  return ~crc & 0xffff;
}

/**
 * One packet around `content`: the short form (78 78, 1-byte length) when it fits, the long form
 * (79 79, 2-byte length) otherwise. The CRC covers the length through the serial.
 */
export function gt06Packet(protocol: number, content: Uint8Array, serial: number): Buffer {
  const length = 1 + content.length + 2 + 2;
  const long = length > 0xff;
  const head = long ? Buffer.from([0x79, 0x79, length >>> 8, length & 0xff]) : Buffer.from([0x78, 0x78, length]);
  const body = Buffer.concat([head, Buffer.from([protocol]), content, u16(serial & 0xffff)]);
  return Buffer.concat([body, u16(crcItu(body.subarray(2))), Buffer.from([0x0d, 0x0a])]);
}

/** A 15-digit IMEI as the 8 BCD bytes of the login packet (a leading 0 nibble). */
export function imeiBcd(imei: string): Buffer {
  if (!/^\d{15}$/.test(imei)) throw new RangeError(`'${imei}' is not a 15-digit IMEI`);
  return Buffer.from(`0${imei}`, 'hex');
}

export function loginPacket(imei: string, serial: number): Buffer {
  return gt06Packet(GT06_PROTOCOL.login, imeiBcd(imei), serial);
}

/** Alarm codes of the alarm byte (heartbeat and alarm packets). */
export const GT06_ALARM = {
  normal: 0x00,
  sos: 0x01,
  powerCut: 0x02,
  vibration: 0x03,
  enterFence: 0x04,
  exitFence: 0x05,
  overSpeed: 0x06,
} as const;

/** Language byte: the device's SMS language, 0x02 English. */
export const LANGUAGE_ENGLISH = 0x02;

/** Terminal info bits (heartbeat, status and alarm packets). */
export const TERMINAL_INFO = {
  /** Bit 0: defence (arming) on. */
  defence: 0x01,
  /** Bit 1: ACC (ignition) high. */
  acc: 0x02,
  /** Bit 2: charging (external power connected). */
  charging: 0x04,
  /** Bit 6: GPS tracking on. */
  gpsTracking: 0x40,
  /** Bit 7: oil/electricity cut by a remote command. */
  cutOff: 0x80,
} as const;

/** What the heartbeat and the status/alarm packets say about the device itself. */
export interface Gt06Status {
  /** TERMINAL_INFO bits; bits 5–3 the alarm state (100 SOS, 011 low battery, 010 power cut, 001 vibration). */
  terminalInfo: number;
  /** 0 no power (shutting down) … 6 very high. */
  voltageLevel: number;
  /** 0 no signal … 4 strong. */
  gsmSignal: number;
  /** One of GT06_ALARM (or another code a firmware defines). */
  alarm: number;
  language: number;
}

function statusBytes(s: Gt06Status): Buffer {
  return Buffer.from([s.terminalInfo, s.voltageLevel, s.gsmSignal, s.alarm, s.language]);
}

export function heartbeatPacket(status: Gt06Status, serial: number): Buffer {
  return gt06Packet(GT06_PROTOCOL.heartbeat, statusBytes(status), serial);
}

export interface Gt06Fix {
  timestampMs: number;
  latitude: number;
  longitude: number;
  speedKmh: number;
  courseDeg: number;
  satellites: number;
  /** GPS positioned (status bit 12). */
  positioned: boolean;
  /** Differential (1) or real-time (0) GPS (status bit 13). */
  differential: boolean;
}

/** The serving cell: Brazil's MCC 724 by default. */
export interface Gt06Cell {
  mcc: number;
  mnc: number;
  lac: number;
  cellId: number;
}

/** Course and status word: bit 13 differential, 12 positioned, 11 west, 10 north, 9–0 course. */
export function courseStatus(fix: Gt06Fix): number {
  return (
    (fix.differential ? 1 << 13 : 0) |
    (fix.positioned ? 1 << 12 : 0) |
    (fix.longitude < 0 ? 1 << 11 : 0) |
    (fix.latitude >= 0 ? 1 << 10 : 0) |
    ((Math.round(fix.courseDeg) % 360) & 0x3ff)
  );
}

/** Degrees as GT06 carries them: minutes × 30 000, unsigned (the hemisphere is in the status word). */
export function coordinateUnits(degrees: number): number {
  return Math.round(Math.abs(degrees) * 60 * 30_000);
}

/** GPS block: date-time, GPS info, latitude, longitude, speed, course/status (18 bytes). */
export function gpsBlock(fix: Gt06Fix): Buffer {
  const t = new Date(fix.timestampMs);
  if (Number.isNaN(t.getTime())) throw new RangeError(`timestamp ${fix.timestampMs}`);
  const out = Buffer.alloc(18);
  out.writeUInt8(t.getUTCFullYear() % 100, 0);
  out.writeUInt8(t.getUTCMonth() + 1, 1);
  out.writeUInt8(t.getUTCDate(), 2);
  out.writeUInt8(t.getUTCHours(), 3);
  out.writeUInt8(t.getUTCMinutes(), 4);
  out.writeUInt8(t.getUTCSeconds(), 5);
  // GPS info: the length of the GPS information that follows (12 bytes) and the satellites in use.
  out.writeUInt8((12 << 4) | Math.min(15, Math.max(0, Math.round(fix.satellites))), 6);
  out.writeUInt32BE(coordinateUnits(fix.latitude), 7);
  out.writeUInt32BE(coordinateUnits(fix.longitude), 11);
  out.writeUInt8(Math.min(255, Math.max(0, Math.round(fix.speedKmh))), 15);
  out.writeUInt16BE(courseStatus(fix), 16);
  return out;
}

/** MCC (2), MNC (1), LAC (2), cell id (`cellIdBytes`: 3 in 0x22 and 0x26, 4 in some later variants). */
export function lbsBlock(cell: Gt06Cell, cellIdBytes: 3 | 4 = 3): Buffer {
  const out = Buffer.alloc(5 + cellIdBytes);
  out.writeUInt16BE(cell.mcc, 0);
  out.writeUInt8(cell.mnc, 2);
  out.writeUInt16BE(cell.lac, 3);
  out.writeUIntBE(cell.cellId, 5, cellIdBytes);
  return out;
}

export interface Gt06Location {
  fix: Gt06Fix;
  cell: Gt06Cell;
  acc: boolean;
  /** Data upload mode: 0x00 on the time interval, 0x01 on distance, 0x02 on a turn, … */
  uploadMode: number;
  /** A position sent late from the device's memory (1) rather than in real time (0). */
  reupload: boolean;
}

/** Location packet 0x22 (GPS and LBS). */
export function locationPacket(l: Gt06Location, serial: number): Buffer {
  const tail = Buffer.from([l.acc ? 1 : 0, l.uploadMode, l.reupload ? 1 : 0]);
  return gt06Packet(GT06_PROTOCOL.location, Buffer.concat([gpsBlock(l.fix), lbsBlock(l.cell), tail]), serial);
}

/**
 * Status packet with a position: 0x26 for an alarm (the position of the event and its code), 0x16
 * (the same layout) for a position that must carry the device's status with no alarm.
 */
export function statusPacket(
  protocol: typeof GT06_PROTOCOL.alarm | typeof GT06_PROTOCOL.status,
  fix: Gt06Fix,
  cell: Gt06Cell,
  status: Gt06Status,
  serial: number,
): Buffer {
  const lbs = lbsBlock(cell);
  // The LBS length byte counts the bytes after it (8), as the trackers in the Brazilian captures
  // send it; some documents count the byte itself (9), and decoders skip whatever is past 8.
  const content = Buffer.concat([gpsBlock(fix), Buffer.from([lbs.length]), lbs, statusBytes(status)]);
  return gt06Packet(protocol, content, serial);
}

/** One packet the server sent, as the device reads it. */
export type ServerPacket =
  | { kind: 'packet'; protocol: number; content: Buffer; serial: number; bytes: number }
  | { kind: 'incomplete' }
  | { kind: 'garbage'; bytes: number; reason: string };

/** A whole, valid packet from the server: what the device takes for an answer. */
export type ServerAnswer = Extract<ServerPacket, { kind: 'packet' }>;

/**
 * Reads the packet at the start of `buf`: its protocol, content and serial when it is whole and
 * its CRC is right. A device treats anything else as no answer: garbage is skipped, never taken
 * for an acknowledgement.
 */
export function readServerPacket(buf: Buffer): ServerPacket {
  if (buf.length < 2) return { kind: 'incomplete' };
  const long = buf[0] === 0x79 && buf[1] === 0x79;
  if (!long && !(buf[0] === 0x78 && buf[1] === 0x78)) {
    // Resynchronise on the next start bits.
    let next = 1;
    while (next < buf.length - 1 && !isStart(buf, next)) next++;
    return { kind: 'garbage', bytes: next, reason: 'no start bits' };
  }
  const lengthBytes = long ? 2 : 1;
  if (buf.length < 2 + lengthBytes) return { kind: 'incomplete' };
  const length = long ? buf.readUInt16BE(2) : (buf[2] as number);
  const total = 2 + lengthBytes + length + 2;
  if (length < 5) return { kind: 'garbage', bytes: 2 + lengthBytes, reason: `length ${length}` };
  if (buf.length < total) return { kind: 'incomplete' };
  const crcAt = total - 4;
  if (buf[total - 2] !== 0x0d || buf[total - 1] !== 0x0a) return { kind: 'garbage', bytes: 2, reason: 'no stop bits' };
  if (crcItu(buf.subarray(2, crcAt)) !== buf.readUInt16BE(crcAt))
    return { kind: 'garbage', bytes: total, reason: 'CRC' };
  return {
    kind: 'packet',
    protocol: buf[2 + lengthBytes] as number,
    content: Buffer.from(buf.subarray(3 + lengthBytes, crcAt - 2)),
    serial: buf.readUInt16BE(crcAt - 2),
    bytes: total,
  };
}

function isStart(buf: Buffer, at: number): boolean {
  const a = buf[at];
  return (a === 0x78 || a === 0x79) && buf[at + 1] === a;
}

function u16(value: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(value);
  return b;
}
