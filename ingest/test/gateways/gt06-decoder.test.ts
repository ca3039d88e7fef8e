import { describe, expect, it } from 'vitest';
import {
  decodeGt06,
  encodeGt06Packet,
  type Gt06Message,
  Gt06ProtocolError,
  gt06TimeToMs,
  scanGt06Packet,
} from '../../src/gateways/index.js';
import {
  CAPTURE_FILES,
  type CapturedRead,
  capturesAvailable,
  readCaptures,
  readDecoded,
} from './support/gt06-captures.js';

/**
 * The GT06 frame and protocol decoders over every frame of the Brazilian captures: each frame
 * decodes or is refused for a stated reason, and for the one tracker whose author published his
 * decoder's output, positions, speeds, courses, times and the rest agree to the precision that
 * file gives.
 */

interface Frame {
  read: CapturedRead;
  protocol: number;
  serial: number;
  outcome: { ok: true; message: Gt06Message } | { ok: false; code: string; message: string };
}

/** Every packet of every read, in order; a read must split into whole packets with good CRCs. */
function framesOf(file: string): Frame[] {
  const out: Frame[] = [];
  for (const read of readCaptures(file)) {
    let buf = read.bytes;
    while (buf.length > 0) {
      const scan = scanGt06Packet(buf, 2048);
      if (scan.kind !== 'packet') throw new Error(`${file}:${read.line}: a truncated packet`);
      expect(scan.crcOk, `${file}:${read.line} CRC`).toBe(true);
      let outcome: Frame['outcome'];
      try {
        outcome = { ok: true, message: decodeGt06(scan.protocol, scan.content) };
      } catch (err) {
        if (!(err instanceof Gt06ProtocolError)) throw err;
        outcome = { ok: false, code: err.code, message: err.message };
      }
      out.push({ read, protocol: scan.protocol, serial: scan.serial, outcome });
      buf = buf.subarray(scan.consumed);
    }
  }
  return out;
}

/** An IMEI's last digit is its Luhn check digit: a decoder that misreads BCD fails it. */
function luhnOk(imei: string): boolean {
  let sum = 0;
  for (let i = 0; i < imei.length; i++) {
    let d = Number(imei[imei.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** Server times as the two files write them: "00:11:19.58" in one, "00:11:19.580" in the other. */
const serverTime = (s: string) => {
  const [whole, fraction = ''] = s.split('.');
  return `${whole}.${fraction.padEnd(3, '0')}`;
};

const describeCaptures = capturesAvailable ? describe : describe.skip;

describeCaptures('every captured frame', () => {
  it.each(Object.values(CAPTURE_FILES).filter((f) => !f.includes('decoded')))(
    '%s: decodes, or is refused for a stated reason',
    (file) => {
      const frames = framesOf(file);
      const tally = new Map<string, number>();
      for (const f of frames) {
        const key = f.outcome.ok
          ? `0x${f.protocol.toString(16)} ${f.outcome.message.kind}`
          : `0x${f.protocol.toString(16)} ${f.outcome.code}`;
        tally.set(key, (tally.get(key) ?? 0) + 1);
        if (!f.outcome.ok) {
          // The only refusals: commands the server sent, logged in the same table.
          expect(f.protocol, `${file}:${f.read.line}: ${f.outcome.message}`).toBe(0x80);
          expect(f.outcome.code).toBe('UNSUPPORTED_PROTOCOL');
          expect(f.outcome.message).toMatch(/server command/);
        }
      }
      const expected: Record<string, Record<string, number>> = {
        [CAPTURE_FILES.withSources]: { '0x13 status': 431, '0x32 position': 88, '0x16 position': 35, '0x1 login': 19 },
        [CAPTURE_FILES.commands]: {
          '0x13 status': 1268,
          '0x32 position': 192,
          '0x16 position': 113,
          '0x1 login': 14,
          '0x15 commandReply': 16,
          '0x80 UNSUPPORTED_PROTOCOL': 16,
        },
        [CAPTURE_FILES.third]: { '0x13 status': 784, '0x32 position': 202, '0x16 position': 152, '0x1 login': 22 },
      };
      expect(Object.fromEntries(tally)).toEqual(expected[file]);
      const imeis = new Set<string>();
      for (const f of frames) {
        if (!f.outcome.ok && f.outcome.code) continue;
        const m = f.outcome.ok ? f.outcome.message : undefined;
        if (m?.kind === 'position') {
          // In Brazil (west of Greenwich: the hemisphere bit), and a time of the capture days (UTC).
          expect(m.gps.latitude).toBeGreaterThan(-34);
          expect(m.gps.latitude).toBeLessThan(6);
          expect(m.gps.longitude).toBeGreaterThan(-74);
          expect(m.gps.longitude).toBeLessThan(-34);
          const ts = gt06TimeToMs(m.gps.time);
          // Not all of the capture days: a tracker uploads positions stored weeks before (2025-09-02).
          expect(ts).toBeGreaterThanOrEqual(Date.UTC(2025, 7, 1));
          expect(ts).toBeLessThan(Date.UTC(2025, 9, 19));
        }
        if (m?.kind === 'login') {
          imeis.add(m.imei);
          expect(luhnOk(m.imei), m.imei).toBe(true);
        }
        if (m?.kind === 'commandReply') expect(m.text).toMatch(/^(SETOK|READOK|RELAY)/);
      }
      // The file is named after a tracker that logs in in it (the table holds other trackers' rows too).
      expect(imeis).toContain(file.replace(/^0/, '').replace('.csv', ''));
    },
  );

  it('869412074480093: agrees with its author decoder on every row (matched by server time and serial)', () => {
    const frames = framesOf(CAPTURE_FILES.withSources);
    const byKey = new Map(frames.map((f) => [`${serverTime(f.read.at)}|${f.serial}`, f]));
    const decoded = readDecoded();
    expect(decoded).toHaveLength(573);
    let positions = 0;
    for (const row of decoded) {
      const where = `${row['Data/Hora Inclusão']} #${row.Sequência}`;
      const f = byKey.get(`${serverTime(row['Data/Hora Inclusão'] ?? '')}|${row.Sequência}`);
      expect(f, where).toBeDefined();
      if (!f?.outcome.ok) throw new Error(`${where}: refused`);
      const m = f.outcome.message;
      expect(row.IMEI).toBe('869412074480093');
      switch (row['Tipo Mensagem']) {
        case 'Login':
          expect(m).toEqual({ kind: 'login', imei: row.IMEI, utcOffsetMinutes: undefined });
          break;
        case 'Heartbeat':
          if (m.kind !== 'status') throw new Error(`${where}: ${m.kind}`);
          expect(m.status.gsmSignal, where).toBe(Number(row['Qualidade do sinal de GSM']));
          // "Bateria extremamente alta" is level 6 of the protocol's 0–6.
          if (row['Bateria interna interna'] === 'Bateria extremamente alta') expect(m.status.voltageLevel).toBe(6);
          break;
        default: {
          if (m.kind !== 'position') throw new Error(`${where}: ${m.kind}`);
          positions++;
          // The file's event time is Brasília time (UTC−3) to the millisecond field, .000 always.
          const event = Date.parse(`${row['Data/Hora Evento']?.replace(' ', 'T')}-03:00`);
          expect(gt06TimeToMs(m.gps.time), where).toBe(event);
          expect(Math.abs(m.gps.latitude - Number(row.Latitude)), where).toBeLessThanOrEqual(5e-7 + 1e-12);
          expect(Math.abs(m.gps.longitude - Number(row.Longitude)), where).toBeLessThanOrEqual(5e-7 + 1e-12);
          expect(m.gps.speedKmh, where).toBe(Number(row.Velocidade));
          expect(m.gps.courseDeg, where).toBe(Number(row.Azimuth));
          // The file's 0x16 rows give the GPS information byte's length nibble (always 12) as
          // satellites; the protocol puts the satellites in the low nibble, as its 0x32 rows read.
          if (f.protocol === 0x32) expect(m.gps.satellites, where).toBe(Number(row.Satélites));
          else expect(row.Satélites, where).toBe('12');
          expect(m.gps.positioned, where).toBe(row['GPS valido'] === '1');
          expect(((m.mileageM ?? 0) / 1000).toFixed(1), where).toBe(Number(row['Hodômetro Total']).toFixed(1));
          if (f.protocol === 0x32) {
            expect(m.acc, where).toBe(row['Analog Input Status'] === '1');
            expect(((m.externalVoltageCv ?? 0) / 100).toFixed(2), where).toBe(row['Alimentação Externa']);
          } else {
            // 0x16 is an ignition event: IGN = alarm 0xFE (ACC on), IGF = 0xFF (ACC off).
            expect(f.protocol).toBe(0x16);
            expect(m.alarm, where).toBe(row['Tipo Mensagem'] === 'IGN' ? 0xfe : 0xff);
            expect(((m.status?.terminalInfo ?? 0) >> 1) & 1, where).toBe(Number(row['Analog Input Status']));
            expect((m.status?.terminalInfo ?? -1).toString(2).padStart(8, '0'), where).toBe(
              row['Terminal information'],
            );
          }
        }
      }
    }
    expect(positions).toBe(88 + 35);
  });
});

describe('frames refused for a stated reason', () => {
  const heartbeat = encodeGt06Packet(0x13, Buffer.from([0x46, 0x06, 0x04, 0x00, 0x01]), 7);

  it('a packet the protocol describes decodes; its CRC covers length to serial', () => {
    const scan = scanGt06Packet(heartbeat, 2048);
    expect(scan).toMatchObject({ kind: 'packet', protocol: 0x13, serial: 7, crcOk: true, long: false });
    const corrupt = Buffer.from(heartbeat);
    corrupt[4] = 0x47;
    expect(scanGt06Packet(corrupt, 2048)).toMatchObject({ kind: 'packet', crcOk: false });
  });

  it('the long form (79 79, 2-byte length) frames the same content', () => {
    const long = encodeGt06Packet(0x13, Buffer.from([0x46, 0x06, 0x04, 0x00, 0x01]), 7, true);
    expect(long.subarray(0, 4).toString('hex')).toBe('7979000a');
    expect(scanGt06Packet(long, 2048)).toMatchObject({
      kind: 'packet',
      protocol: 0x13,
      serial: 7,
      crcOk: true,
      long: true,
    });
  });

  it.each([
    ['no start bits', Buffer.from('GET / HTTP/1.1\r\n'), 'BAD_START_BITS'],
    ['7879', Buffer.from('7879', 'hex'), 'BAD_START_BITS'],
    ['a length of 4', Buffer.from('78780401000100000d0a', 'hex'), 'BAD_LENGTH'],
    ['a long length beyond the limit', Buffer.from('7979ffff', 'hex'), 'BAD_LENGTH'],
    [
      'stop bits not where the length puts them',
      Buffer.concat([heartbeat.subarray(0, -2), Buffer.from('0d0b', 'hex')]),
      'BAD_STOP_BITS',
    ],
  ])('%s: %s', (_what, bytes, code) => {
    expect(() => scanGt06Packet(bytes, 2048)).toThrow(expect.objectContaining({ code }));
  });

  it('a truncated packet, and a length of 255 with no body, wait for bytes that never come', () => {
    expect(scanGt06Packet(heartbeat.subarray(0, heartbeat.length - 3), 2048)).toEqual({ kind: 'incomplete' });
    expect(scanGt06Packet(Buffer.from('7878ff', 'hex'), 2048)).toEqual({ kind: 'incomplete' });
  });

  it.each([
    ['a login of 7 IMEI bytes', 0x01, '08694120744800', 'MALFORMED_PACKET'],
    ['an IMEI that is not BCD', 0x01, '0869412074480a93', 'MALFORMED_PACKET'],
    ['a location cut inside its GPS block', 0x22, '190a1103002dc40337b0d4', 'MALFORMED_PACKET'],
    [
      'an alarm whose LBS length runs past the end',
      0x16,
      `190a1103122ac603398b84057d4cd80008c0ff${'00'.repeat(8)}`,
      'MALFORMED_PACKET',
    ],
    ['a status without its GSM signal', 0x13, '4606', 'MALFORMED_PACKET'],
    ['a server command', 0x80, '0c00000000524553455423', 'UNSUPPORTED_PROTOCOL'],
    ['an unknown protocol number', 0x99, '00', 'UNSUPPORTED_PROTOCOL'],
  ])('%s', (_what, protocol, hex, code) => {
    expect(() => decodeGt06(protocol, Buffer.from(hex, 'hex'))).toThrow(expect.objectContaining({ code }));
  });

  it('reads the hemisphere bits: north and east positive, and the login time zone', () => {
    const gps = (flags: number) =>
      Buffer.concat([
        Buffer.from('190a11030000', 'hex'),
        Buffer.from([0xc5]),
        Buffer.from('0337b0d4057d9558', 'hex'),
        Buffer.from([60, flags >> 8, flags & 0xff]),
      ]);
    const north = decodeGt06(0x10, gps(0x1400 | 90));
    const south = decodeGt06(0x10, gps(0x1800 | 90));
    if (north.kind !== 'position' || south.kind !== 'position') throw new Error('not positions');
    expect(north.gps).toMatchObject({
      latitude: 53981396 / 1_800_000,
      longitude: 92116312 / 1_800_000,
      courseDeg: 90,
      speedKmh: 60,
      satellites: 5,
      positioned: true,
    });
    expect(south.gps).toMatchObject({ latitude: -53981396 / 1_800_000, longitude: -92116312 / 1_800_000 });
    // Type code 0x2200, zone 0x12C8: 300 → GMT−3:00 (bit 3 west).
    const login = decodeGt06(0x01, Buffer.from('0869412074480093220012c8', 'hex'));
    expect(login).toEqual({ kind: 'login', imei: '869412074480093', utcOffsetMinutes: -180 });
  });

  it('0x12, 0x26 and 0x27 decode as the protocol lays them out', () => {
    const gps = Buffer.from('190a1103002dc90337b0d4057d95582818b4', 'hex');
    const lbs = Buffer.from('02d406c4af0aaf78', 'hex');
    const p12 = decodeGt06(0x12, Buffer.concat([gps, lbs]));
    expect(p12).toMatchObject({
      kind: 'position',
      gps: { speedKmh: 40, courseDeg: 180, satellites: 9, positioned: true },
    });
    for (const protocol of [0x26, 0x27]) {
      // GPS, LBS length and LBS, terminal info, voltage, GSM, alarm (0x02 power cut), language (2), geofence.
      const content = Buffer.concat([
        gps,
        Buffer.from([8]),
        lbs,
        Buffer.from([0x44, 0x05, 0x03, 0x02, 0x00, 0x02, 0x01]),
      ]);
      const m = decodeGt06(protocol, content);
      expect(m).toMatchObject({
        kind: 'position',
        alarm: 0x02,
        status: { terminalInfo: 0x44, voltageLevel: 5, gsmSignal: 3 },
      });
      if (m.kind !== 'position') throw new Error('not a position');
      expect(m.gps.latitude).toBeCloseTo(-29.989664, 6);
      expect(m.gps.longitude).toBeCloseTo(-51.175729, 6);
    }
  });

  it('a date that does not exist is no time at all, and a local clock is brought back to UTC', () => {
    expect(gt06TimeToMs({ year: 2025, month: 2, day: 31, hour: 0, minute: 0, second: 0 })).toBeNaN();
    expect(gt06TimeToMs({ year: 2025, month: 13, day: 1, hour: 0, minute: 0, second: 0 })).toBeNaN();
    expect(gt06TimeToMs({ year: 2025, month: 10, day: 17, hour: 0, minute: 0, second: 45 }, -180)).toBe(
      Date.UTC(2025, 9, 17, 3, 0, 45),
    );
  });
});
