import { encodeGt06Packet } from './gt06-frame.js';

/**
 * GT06 packets as a device sends them, built from the protocol's layout (Concox "GT06
 * communication protocol") and independently of the gateway's decoder: the gateway itself only
 * needs its answers; these are for the tests' devices and the benchmark's.
 */

/** The login's terminal id: the IMEI as 8 bytes of BCD, a leading 0 first. */
export const imeiBcd = (imei: string) => Buffer.from(`0${imei}`, 'hex');

/** 0x01 login. */
export const login = (imei: string, serial: number) => encodeGt06Packet(0x01, imeiBcd(imei), serial);

/** Heartbeat: terminal info (bit 1 ACC), voltage level, GSM signal, alarm, language. */
export const heartbeat = (terminalInfo: number, serial: number) =>
  encodeGt06Packet(0x13, Buffer.from([terminalInfo, 0x06, 0x04, 0x00, 0x01]), serial);

export interface Fix {
  /** The firmware clock's reading, epoch ms (its UTC fields are what goes on the wire). */
  clockMs: number;
  lat: number;
  lon: number;
  speedKmh?: number;
  course?: number;
  satellites?: number;
  positioned?: boolean;
}

/** The 18-byte GPS block: date and time (UTC), satellites, latitude, longitude, speed, course and flags. */
export function gpsBlock(f: Fix): Buffer {
  const d = new Date(f.clockMs);
  const b = Buffer.alloc(18);
  b.writeUInt8(d.getUTCFullYear() - 2000, 0);
  b.writeUInt8(d.getUTCMonth() + 1, 1);
  b.writeUInt8(d.getUTCDate(), 2);
  b.writeUInt8(d.getUTCHours(), 3);
  b.writeUInt8(d.getUTCMinutes(), 4);
  b.writeUInt8(d.getUTCSeconds(), 5);
  b.writeUInt8(0xc0 | (f.satellites ?? 9), 6);
  b.writeUInt32BE(Math.round(Math.abs(f.lat) * 1_800_000), 7);
  b.writeUInt32BE(Math.round(Math.abs(f.lon) * 1_800_000), 11);
  b.writeUInt8(f.speedKmh ?? 0, 15);
  let flags = (f.course ?? 0) & 0x3ff;
  if (f.lat >= 0) flags |= 0x0400;
  if (f.lon < 0) flags |= 0x0800;
  if (f.positioned ?? true) flags |= 0x1000;
  b.writeUInt16BE(flags, 16);
  return b;
}

/** MCC 724 (Brazil), MNC 6, LAC, 3-byte cell. */
const LBS = Buffer.from('02d406c4af0aaf78', 'hex');

/** 0x22: GPS, LBS, ACC, upload mode, re-upload. */
export const location22 = (f: Fix, acc: boolean, serial: number) =>
  encodeGt06Packet(0x22, Buffer.concat([gpsBlock(f), LBS, Buffer.from([acc ? 1 : 0, 0, 0])]), serial);

/** 0x12: GPS and LBS, nothing about ACC. */
export const location12 = (f: Fix, serial: number) => encodeGt06Packet(0x12, Buffer.concat([gpsBlock(f), LBS]), serial);

/** 0x16 alarm: GPS, LBS length + LBS, terminal info, voltage, GSM, alarm code, language. */
export const alarm16 = (f: Fix, terminalInfo: number, alarm: number, serial: number) =>
  encodeGt06Packet(
    0x16,
    Buffer.concat([gpsBlock(f), Buffer.from([LBS.length]), LBS, Buffer.from([terminalInfo, 0x06, 0x04, alarm, 0x01])]),
    serial,
  );
