import { Gt06ProtocolError } from './gt06-error.js';
import { GT06_PROTOCOL, type Gt06DateTime, type Gt06Gps, type Gt06Message, type Gt06Status } from './gt06-message.js';

/**
 * The GT06 protocol decoder: one packet's protocol number and content → what it says. Written
 * from Concox's "GT06 communication protocol" documents and checked against the frames of real
 * trackers in Brazil (the GT06V4 firmware's 0x32 layout is read from those frames). Every
 * packet either decodes or throws a `Gt06ProtocolError` saying why; nothing is guessed.
 */

/** Degrees × 30 000 × 60: the unit of GT06 coordinates. */
const COORDINATE_UNIT = 1_800_000;
const GPS_BLOCK_BYTES = 18;

/** Bounds-checked reads: a content shorter than its protocol's layout is MALFORMED, never read past. */
class Reader {
  private at = 0;

  constructor(
    private readonly buf: Buffer,
    private readonly what: string,
  ) {}

  get remaining(): number {
    return this.buf.length - this.at;
  }

  need(n: number, field: string): void {
    if (this.remaining < n) {
      throw new Gt06ProtocolError(
        'MALFORMED_PACKET',
        `${this.what}: ${field} needs ${n} more bytes, ${this.remaining} left (content of ${this.buf.length})`,
      );
    }
  }

  u8(field: string): number {
    this.need(1, field);
    return this.buf[this.at++] as number;
  }

  u16(field: string): number {
    this.need(2, field);
    const v = this.buf.readUInt16BE(this.at);
    this.at += 2;
    return v;
  }

  u32(field: string): number {
    this.need(4, field);
    const v = this.buf.readUInt32BE(this.at);
    this.at += 4;
    return v;
  }

  skip(n: number, field: string): void {
    this.need(n, field);
    this.at += n;
  }

  bytes(n: number, field: string): Buffer {
    this.need(n, field);
    const out = this.buf.subarray(this.at, this.at + n);
    this.at += n;
    return out;
  }
}

function hex(n: number): string {
  return `0x${n.toString(16).padStart(2, '0')}`;
}

export function decodeGt06(protocol: number, content: Buffer): Gt06Message {
  const r = new Reader(content, `protocol ${hex(protocol)}`);
  switch (protocol) {
    case GT06_PROTOCOL.login:
      return decodeLogin(r, content.length);
    case GT06_PROTOCOL.status: {
      const status = readStatus(r);
      // Alarm and language follow in most firmwares; an early one stops after the GSM signal.
      const alarm = r.remaining >= 1 ? r.u8('alarm') : undefined;
      return { kind: 'status', status, alarm };
    }
    case GT06_PROTOCOL.gps:
      return { kind: 'position', gps: readGps(r) };
    case GT06_PROTOCOL.gpsLbs: {
      const gps = readGps(r);
      readLbs(r, 3);
      return { kind: 'position', gps };
    }
    case GT06_PROTOCOL.gpsLbs2:
    case GT06_PROTOCOL.gpsLbs4: {
      const gps = readGps(r);
      readLbs(r, protocol === GT06_PROTOCOL.gpsLbs4 ? 4 : 3);
      const acc = r.u8('ACC') !== 0;
      r.u8('data upload mode');
      const reupload = r.u8('GPS real-time re-upload') === 1;
      const mileageM = r.remaining >= 4 ? r.u32('mileage') : undefined;
      const externalVoltageCv = protocol === GT06_PROTOCOL.gpsLbs4 && r.remaining >= 2 ? r.u16('voltage') : undefined;
      return { kind: 'position', gps, acc, reupload, mileageM, externalVoltageCv };
    }
    case GT06_PROTOCOL.alarm:
    case GT06_PROTOCOL.alarm2:
    case GT06_PROTOCOL.alarm3: {
      const gps = readGps(r);
      const lbsLength = r.u8('LBS length');
      r.skip(lbsLength, 'LBS');
      const status = readStatus(r);
      const alarm = r.u8('alarm');
      if (r.remaining >= 1) r.u8('language');
      // 0x16 of the GT06V4 firmware carries the odometer after the language byte.
      const mileageM = protocol === GT06_PROTOCOL.alarm && r.remaining >= 4 ? r.u32('mileage') : undefined;
      return { kind: 'position', gps, status, alarm, mileageM };
    }
    case GT06_PROTOCOL.commandReply: {
      const length = r.u8('command length');
      if (length < 4) throw new Gt06ProtocolError('MALFORMED_PACKET', `command length ${length} < 4 (server flag)`);
      r.skip(4, 'server flag');
      const text = r.bytes(length - 4, 'command text').toString('latin1');
      return { kind: 'commandReply', text };
    }
    case GT06_PROTOCOL.serverCommand:
      throw new Gt06ProtocolError('UNSUPPORTED_PROTOCOL', 'protocol 0x80 is a server command; a device never sends it');
    default:
      throw new Gt06ProtocolError('UNSUPPORTED_PROTOCOL', `protocol ${hex(protocol)} is not one this gateway takes`);
  }
}

function decodeLogin(r: Reader, length: number): Gt06Message {
  // IMEI (8), then optionally the type identification code (2) and the time zone/language (2).
  if (length !== 8 && length !== 10 && length !== 12) {
    throw new Gt06ProtocolError('MALFORMED_PACKET', `a login carries 8, 10 or 12 content bytes, not ${length}`);
  }
  const bcd = r.bytes(8, 'IMEI').toString('hex');
  if (!/^0\d{15}$/.test(bcd)) {
    throw new Gt06ProtocolError('MALFORMED_PACKET', `IMEI ${bcd} is not 15 BCD digits after a 0 nibble`);
  }
  let utcOffsetMinutes: number | undefined;
  if (length === 12) {
    r.u16('type identification code');
    // Bits 15–4: the zone × 100 (800 = GMT+8:00), bit 3: west of Greenwich.
    const bits = r.u16('time zone');
    const value = bits >>> 4;
    const minutes = Math.floor(value / 100) * 60 + (value % 100);
    if (value % 100 < 60 && minutes <= 14 * 60) utcOffsetMinutes = bits & 0x08 ? -minutes : minutes;
  }
  return { kind: 'login', imei: bcd.slice(1), utcOffsetMinutes };
}

function readStatus(r: Reader): Gt06Status {
  return {
    terminalInfo: r.u8('terminal information'),
    voltageLevel: r.u8('voltage level'),
    gsmSignal: r.u8('GSM signal'),
  };
}

function readGps(r: Reader): Gt06Gps {
  r.need(GPS_BLOCK_BYTES, 'GPS block');
  const time: Gt06DateTime = {
    year: 2000 + r.u8('year'),
    month: r.u8('month'),
    day: r.u8('day'),
    hour: r.u8('hour'),
    minute: r.u8('minute'),
    second: r.u8('second'),
  };
  const info = r.u8('GPS information');
  const lat = r.u32('latitude') / COORDINATE_UNIT;
  const lon = r.u32('longitude') / COORDINATE_UNIT;
  const speedKmh = r.u8('speed');
  const flags = r.u16('course and status');
  return {
    time,
    satellites: info & 0x0f,
    // Bit 10 set: north; bit 11 set: west.
    latitude: flags & 0x0400 ? lat : -lat,
    longitude: flags & 0x0800 ? -lon : lon,
    speedKmh,
    courseDeg: flags & 0x03ff,
    positioned: (flags & 0x1000) !== 0,
    accFromCourse: flags & 0x4000 ? (flags & 0x8000) !== 0 : undefined,
  };
}

/** MCC (bit 15: a 2-byte MNC follows), MNC, LAC, cell id: read past, not used by the records. */
function readLbs(r: Reader, cellBytes: 3 | 4): void {
  const mcc = r.u16('MCC');
  r.skip(mcc & 0x8000 ? 2 : 1, 'MNC');
  r.skip(2, 'LAC');
  r.skip(cellBytes, 'cell id');
}

/**
 * The epoch milliseconds of a GPS block's time, read in a clock `utcOffsetMinutes` ahead of UTC;
 * NaN for a date that does not exist (month 13, 31 February), which the record sink refuses.
 */
export function gt06TimeToMs(t: Gt06DateTime, utcOffsetMinutes = 0): number {
  const ms = Date.UTC(t.year, t.month - 1, t.day, t.hour, t.minute, t.second);
  const back = new Date(ms);
  const exists =
    t.month >= 1 &&
    t.month <= 12 &&
    back.getUTCDate() === t.day &&
    back.getUTCMonth() === t.month - 1 &&
    t.hour < 24 &&
    t.minute < 60 &&
    t.second < 60;
  return exists ? ms - utcOffsetMinutes * 60_000 : Number.NaN;
}
