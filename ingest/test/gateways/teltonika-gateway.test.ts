import { createSocket } from 'node:dgram';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CODEC_8, CODEC_8_EXTENDED, encodeTcpFrame, encodeUdpDatagram } from '../../src/gateways/index.js';
import { lockTelemetry, type Pipeline, startPipeline } from './support/pipeline.js';
import { fixRecord, frameOf, int, sleep, TestDevice, text } from './support/test-device.js';

/**
 * The Teltonika gateway over real sockets into a real PostgreSQL: handshake answers, ACKs only
 * after commit, refusals with reasons, the connection limits — and a healthy device on another
 * connection acknowledged throughout.
 */

const FRAME_TIMEOUT_MS = 400;
/** An hour ago, on a whole second: recent enough for every limit, old enough never to be in the future. */
const T0 = Math.floor(Date.now() / 1000) * 1000 - 3_600_000;
const TCP = { protocol: 'teltonika', transport: 'tcp' };

let p: Pipeline;
let healthy: TestDevice;
let healthyTs = T0;

/** The healthy device sends one more record and must get its ACK. */
async function healthyStillWorks(): Promise<void> {
  healthyTs += 1000;
  expect(await healthy.send(frameOf([fixRecord(healthyTs, [int(239, 1, 1)])]))).toBe(1);
}

const badInput = (reason: string) => p.gateways.metrics.value('badInput', { ...TCP, reason });

beforeAll(async () => {
  p = await startPipeline({
    limits: {
      teltonikaFrameTimeoutMs: FRAME_TIMEOUT_MS,
      teltonikaHandshakeTimeoutMs: 1_000,
      teltonikaMaxDataBytes: 4096,
    },
  });
  await p.registerDevice({ id: 'dev-healthy', identifier: '356307042441013', protocol: 'teltonika' });
  healthy = await TestDevice.connect(p.gateways.teltonikaPort);
  expect(await healthy.handshake('356307042441013')).toBe(1);
});

afterAll(async () => {
  healthy?.destroy();
  await p?.close();
});

describe('handshake', () => {
  it('answers 01 to a registered IMEI and 00 to an unknown one, then closes', async () => {
    await p.registerDevice({ id: 'dev-hs', identifier: '352093086403655', protocol: 'teltonika' });
    const known = await TestDevice.connect(p.gateways.teltonikaPort);
    expect(await known.handshake('352093086403655')).toBe(1);
    expect(known.open).toBe(true);
    known.destroy();

    const unknown = await TestDevice.connect(p.gateways.teltonikaPort);
    expect(await unknown.handshake('490154203237518')).toBe(0);
    await unknown.waitClosed();
    expect(await badInput('unknown_device')).toBe(1);
    expect(p.logs.some((l) => l.code === 'UNKNOWN_DEVICE' && l.device === '490154203237518')).toBe(true);
    await healthyStillWorks();
  });

  it('refuses an IMEI registered for another protocol: it cannot be used without its token', async () => {
    await p.registerDevice({ id: 'dev-native', identifier: '353201350896384', protocol: 'native' });
    const d = await TestDevice.connect(p.gateways.teltonikaPort);
    expect(await d.handshake('353201350896384')).toBe(0);
    await d.waitClosed();
    expect(await badInput('protocol_mismatch')).toBe(1);
  });

  it('closes a connection whose first bytes are not an IMEI, and one that never sends it', async () => {
    const garbage = await TestDevice.connect(p.gateways.teltonikaPort);
    garbage.write(Buffer.from('GET / HTTP/1.1\r\n\r\n'));
    await garbage.waitClosed();
    expect(garbage.unread.length).toBe(0);
    expect(await badInput('bad_handshake')).toBe(1);

    const silent = await TestDevice.connect(p.gateways.teltonikaPort);
    await silent.waitClosed(3_000);
    expect(await badInput('handshake_timeout')).toBe(1);
    await healthyStillWorks();
  });
});

describe('packets', () => {
  it('acknowledges the record count only once the rows are committed', async () => {
    await p.registerDevice({ id: 'dev-ack', identifier: '359632107452945', protocol: 'teltonika' });
    const d = await TestDevice.connect(p.gateways.teltonikaPort);
    expect(await d.handshake('359632107452945')).toBe(1);
    const records = [0, 1, 2].map((i) => fixRecord(T0 + i * 10_000, [int(239, 1, 1)]));

    // While the telemetry table is locked, the records cannot commit: no ACK may come.
    const lock = await lockTelemetry(p.db);
    try {
      d.write(frameOf(records));
      await sleep(400);
      expect(d.unread.length).toBe(0);
    } finally {
      // The healthy device's packet would wait on the same lock, so it is checked after the release.
      lock.release();
      await lock.done;
    }
    const ack = (await d.read(4)).readUInt32BE(0);
    expect(ack).toBe(3);
    // At the moment the ACK arrived, the rows were there.
    const rows = await p.rows('dev-ack');
    expect(rows.map((r) => r.ts.getTime())).toEqual(records.map((r) => r.timestampMs));
    expect(rows[0]).toMatchObject({ lat: -15.7942, lon: -47.8822, speed_kmh: 32, heading_deg: 90, ignition: true });
    await healthyStillWorks();
    d.destroy();
  });

  it('sends no ACK for a CRC mismatch, keeps the connection, and takes the re-sent packet', async () => {
    await p.registerDevice({ id: 'dev-crc', identifier: '351756051523999', protocol: 'teltonika' });
    const d = await TestDevice.connect(p.gateways.teltonikaPort);
    expect(await d.handshake('351756051523999')).toBe(1);
    const frame = frameOf([fixRecord(T0, [int(239, 1, 1)])]);
    const corrupt = Buffer.from(frame);
    corrupt[30] = (corrupt[30] as number) ^ 0x10;
    d.write(corrupt);
    await sleep(300);
    expect(d.unread.length).toBe(0);
    expect(d.open).toBe(true);
    expect(await p.rows('dev-crc')).toEqual([]);
    expect(await badInput('crc_mismatch')).toBe(1);
    expect(p.logs.some((l) => l.code === 'CRC_MISMATCH' && l.device === '351756051523999')).toBe(true);
    await healthyStillWorks();

    expect(await d.send(frame)).toBe(1);
    expect(await p.rows('dev-crc')).toHaveLength(1);
    d.destroy();
  });

  it('closes the connection after three bad packets in a row', async () => {
    await p.registerDevice({ id: 'dev-bad3', identifier: '350000000000006', protocol: 'teltonika' });
    const d = await TestDevice.connect(p.gateways.teltonikaPort);
    expect(await d.handshake('350000000000006')).toBe(1);
    const bad = Buffer.from(frameOf([fixRecord(T0)]));
    bad[bad.length - 1] = (bad[bad.length - 1] as number) ^ 0xff;
    for (let i = 0; i < 3; i++) d.write(bad);
    await d.waitClosed();
    expect(d.unread.length).toBe(0);
    expect(await badInput('too_many_bad_packets')).toBe(1);
  });

  it('does not acknowledge a well-formed frame that is not AVL data (a Codec 12 command)', async () => {
    await p.registerDevice({ id: 'dev-malformed', identifier: '350000000000014', protocol: 'teltonika' });
    const d = await TestDevice.connect(p.gateways.teltonikaPort);
    expect(await d.handshake('350000000000014')).toBe(1);
    // Codec 12 is a command frame: well formed, CRC right, but not AVL data.
    d.write(Buffer.from('000000000000000f0c010500000007676574696e666f0100004312', 'hex'));
    await sleep(300);
    expect(d.unread.length).toBe(0);
    expect(await badInput('unsupported_codec')).toBe(1);
    d.destroy();
    await healthyStillWorks();
  });

  it('closes a connection announcing an oversized frame, at once', async () => {
    await p.registerDevice({ id: 'dev-big', identifier: '350000000000022', protocol: 'teltonika' });
    const d = await TestDevice.connect(p.gateways.teltonikaPort);
    expect(await d.handshake('350000000000022')).toBe(1);
    const header = Buffer.alloc(8);
    header.writeUInt32BE(10 * 1024 * 1024, 4);
    d.write(header);
    await d.waitClosed(1_000);
    expect(d.unread.length).toBe(0);
    expect(await badInput('frame_too_large')).toBe(1);
    await healthyStillWorks();
  });

  it('closes a connection that trickles a packet byte by byte (slowloris), while others keep working', async () => {
    await p.registerDevice({ id: 'dev-slow', identifier: '350000000000030', protocol: 'teltonika' });
    const d = await TestDevice.connect(p.gateways.teltonikaPort);
    expect(await d.handshake('350000000000030')).toBe(1);
    const frame = frameOf([fixRecord(T0)]);
    const started = Date.now();
    for (let i = 0; i < frame.length && d.open; i++) {
      d.write(frame.subarray(i, i + 1));
      // The healthy device is served in the middle of the trickle.
      if (i === 3) await healthyStillWorks();
      await sleep(60);
    }
    await d.waitClosed(2_000);
    // Closed after about the frame timeout, long before the trickle would have finished.
    expect(Date.now() - started).toBeLessThan(frame.length * 60);
    expect(await badInput('read_timeout')).toBe(1);
    expect(await p.rows('dev-slow')).toEqual([]);
  });

  it('closes a connection that loses its framing (no zero preamble)', async () => {
    await p.registerDevice({ id: 'dev-desync', identifier: '350000000000048', protocol: 'teltonika' });
    const d = await TestDevice.connect(p.gateways.teltonikaPort);
    expect(await d.handshake('350000000000048')).toBe(1);
    d.write(Buffer.from('0102030405060708', 'hex'));
    await d.waitClosed(1_000);
    expect(await badInput('bad_preamble')).toBe(1);
  });

  it('ignores keep-alive bytes between packets', async () => {
    await p.registerDevice({ id: 'dev-ping', identifier: '350000000000055', protocol: 'teltonika' });
    const d = await TestDevice.connect(p.gateways.teltonikaPort);
    expect(await d.handshake('350000000000055')).toBe(1);
    d.write(Buffer.from([0xff]));
    expect(await d.send(frameOf([fixRecord(T0)]))).toBe(1);
    d.destroy();
  });

  it('takes several packets sent back to back, each acknowledged in order', async () => {
    await p.registerDevice({ id: 'dev-burst', identifier: '350000000000063', protocol: 'teltonika' });
    const d = await TestDevice.connect(p.gateways.teltonikaPort);
    expect(await d.handshake('350000000000063')).toBe(1);
    const frames = [1, 2, 3].map((n) =>
      frameOf(Array.from({ length: n }, (_, i) => fixRecord(T0 + n * 100_000 + i * 1000))),
    );
    d.write(Buffer.concat(frames));
    const acks = [await d.read(4), await d.read(4), await d.read(4)].map((b) => b.readUInt32BE(0));
    expect(acks).toEqual([1, 2, 3]);
    expect(await p.rows('dev-burst')).toHaveLength(6);
    d.destroy();
  });
});

describe('records', () => {
  it('stores the valid records, refuses the absurd ones with a reason, and acknowledges the whole packet', async () => {
    await p.registerDevice({ id: 'dev-absurd', identifier: '350000000000071', protocol: 'teltonika' });
    const d = await TestDevice.connect(p.gateways.teltonikaPort);
    expect(await d.handshake('350000000000071')).toBe(1);
    const yearsAhead = Date.now() + 3 * 365 * 86_400_000;
    const packet = frameOf([
      fixRecord(T0),
      fixRecord(T0 + 1000, [], { latitude: 200 }),
      fixRecord(yearsAhead),
      fixRecord(T0 + 3000, [], { latitude: 0, longitude: 0, satellites: 0 }),
      // A corrupt clock: beyond what any date can hold.
      fixRecord(Number.MAX_SAFE_INTEGER),
    ]);
    // All five are settled — one stored, four refused for good — so all five are acknowledged:
    // a partial count would make the device send this packet forever.
    expect(await d.send(packet)).toBe(5);
    const rows = await p.rows('dev-absurd');
    expect(rows.map((r) => r.ts.getTime())).toEqual([T0]);
    const rejected = (reason: string) => p.gateways.metrics.value('rejected', { ...TCP, reason });
    expect(await Promise.all([rejected('invalid_fix'), rejected('future_timestamp'), rejected('no_position')])).toEqual(
      [2, 1, 1],
    );
    expect(p.logs.some((l) => l.code === 'INVALID_FIX' && /lat/.test(l.msg))).toBe(true);
    d.destroy();
  });

  it('counts a re-sent packet as duplicates, stored once', async () => {
    await p.registerDevice({ id: 'dev-dup', identifier: '350000000000089', protocol: 'teltonika' });
    const d = await TestDevice.connect(p.gateways.teltonikaPort);
    expect(await d.handshake('350000000000089')).toBe(1);
    const frame = frameOf([fixRecord(T0), fixRecord(T0 + 1000)]);
    const before = await p.gateways.metrics.value('duplicates', TCP);
    expect(await d.send(frame)).toBe(2);
    expect(await d.send(frame)).toBe(2);
    expect(await p.rows('dev-dup')).toHaveLength(2);
    expect((await p.gateways.metrics.value('duplicates', TCP)) - before).toBe(2);
    d.destroy();
  });

  it('keeps a no-fix record at its last known position with speed, heading and accuracy unknown', async () => {
    await p.registerDevice({ id: 'dev-nofix', identifier: '350000000000097', protocol: 'teltonika' });
    const d = await TestDevice.connect(p.gateways.teltonikaPort);
    expect(await d.handshake('350000000000097')).toBe(1);
    expect(await d.send(frameOf([fixRecord(T0, [int(182, 2, 9)], { satellites: 0, speedKmh: 0 })]))).toBe(1);
    const [row] = await p.rows('dev-nofix');
    expect(row).toMatchObject({ lat: -15.7942, speed_kmh: null, heading_deg: null, accuracy_m: null });
  });

  it('maps IO elements through the device profile (FMC130 taxi)', async () => {
    await p.registerDevice({
      id: 'dev-taxi',
      identifier: '350000000000105',
      protocol: 'teltonika',
      profile: 'teltonika-fmc130-taxi',
    });
    const d = await TestDevice.connect(p.gateways.teltonikaPort);
    expect(await d.handshake('350000000000105')).toBe(1);
    const io = [
      int(239, 1, 1),
      int(2, 1, 0),
      int(3, 1, 1),
      int(9, 2, 2010),
      int(182, 2, 14),
      int(12000, 1, 2),
      int(12001, 1, 1),
      int(12002, 4, 1250),
      text(12003, 'DF-0001-T00012'),
      text(12004, 'sim-drv-df-0001-1'),
      int(12005, 2, 32 * 256 + 128),
    ];
    expect(await d.send(frameOf([fixRecord(T0, io)]))).toBe(1);
    const [row] = await p.rows('dev-taxi');
    expect(row).toMatchObject({
      ignition: true,
      door_open: false,
      meter_tariff: 2,
      passengers: 2,
      accuracy_m: 7,
      meter_state: 'hired',
      children_under7: 1,
      meter_fare_cents: 1250,
      meter_trip_id: 'DF-0001-T00012',
      tacho_driver_id: 'sim-drv-df-0001-1',
      tacho_speed_kmh: 32.5,
    });
  });

  it('leaves out an input the profile cannot read, keeps the position, and says so', async () => {
    await p.registerDevice({
      id: 'dev-taxi-odd',
      identifier: '350000000000113',
      protocol: 'teltonika',
      profile: 'teltonika-fmc130-taxi',
    });
    const d = await TestDevice.connect(p.gateways.teltonikaPort);
    expect(await d.handshake('350000000000113')).toBe(1);
    // Meter state code 9 is in no table; 650 000 mV is 650 passengers, beyond any vehicle.
    const io = [int(12000, 1, 9), int(12002, 4, 990), int(9, 4, 650_000), int(239, 1, 1)];
    expect(await d.send(frameOf([fixRecord(T0, io)]))).toBe(1);
    const [row] = await p.rows('dev-taxi-odd');
    expect(row).toMatchObject({
      lat: -15.7942,
      ignition: true,
      meter_state: null,
      meter_fare_cents: null,
      passengers: null,
    });
    const dropped = (field: string) => p.gateways.metrics.value('droppedFields', { ...TCP, field });
    expect(await Promise.all([dropped('meter.state'), dropped('meter.fareCents'), dropped('passengers')])).toEqual([
      1, 1, 1,
    ]);
    expect(p.logs.some((l) => l.code === 'INPUT_LEFT_OUT' && l.field === 'meter.state')).toBe(true);
  });

  it('stores the fix of a device whose registry profile does not exist, without profile inputs, and says so', async () => {
    // Refused at the handshake, it reconnected for ever and the vehicle lost its whole trail (issue 8, finding 10).
    await p.registerDevice({ id: 'dev-noprof', identifier: '350000000000121', protocol: 'teltonika', profile: 'nope' });
    const d = await TestDevice.connect(p.gateways.teltonikaPort);
    expect(await d.handshake('350000000000121')).toBe(1);
    expect(await d.send(frameOf([fixRecord(T0, [int(239, 1, 1)])]))).toBe(1);
    expect(await p.rows('dev-noprof')).toEqual([expect.objectContaining({ ts: new Date(T0), ignition: null })]);
    expect(p.logs.some((l) => l.code === 'PROFILE_UNAVAILABLE' && l.device === '350000000000121')).toBe(true);
    d.destroy();
  });

  it('takes Codec 8 from the same device', async () => {
    await p.registerDevice({ id: 'dev-c8', identifier: '350000000000139', protocol: 'teltonika' });
    const d = await TestDevice.connect(p.gateways.teltonikaPort);
    expect(await d.handshake('350000000000139')).toBe(1);
    expect(await d.send(encodeTcpFrame(CODEC_8, [fixRecord(T0, [int(239, 1, 0)])]))).toBe(1);
    expect((await p.rows('dev-c8'))[0]?.ignition).toBe(false);
  });

  it('refuses packets once the writer is overloaded: no ACK, connection closed, nothing half-stored', async () => {
    const small = await startPipeline({ maxPending: 2 });
    try {
      await small.registerDevice({ id: 'dev-over', identifier: '350000000000147', protocol: 'teltonika' });
      const d = await TestDevice.connect(small.gateways.teltonikaPort);
      expect(await d.handshake('350000000000147')).toBe(1);
      d.write(frameOf([fixRecord(T0), fixRecord(T0 + 1), fixRecord(T0 + 2)]));
      await d.waitClosed();
      expect(d.unread.length).toBe(0);
      expect(await small.rows('dev-over')).toEqual([]);
      expect(await small.gateways.metrics.value('storageFailures', TCP)).toBe(1);
    } finally {
      await small.close();
    }
  });
});

describe('UDP', () => {
  it('answers a datagram only once stored, with its packet ids and record count; unknown IMEIs get nothing', async () => {
    await p.registerDevice({ id: 'dev-udp', identifier: '352093086403671', protocol: 'teltonika' });
    const socket = createSocket('udp4');
    const answers: Buffer[] = [];
    socket.on('message', (m) => answers.push(m));
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
    const send = (b: Buffer) =>
      new Promise<void>((resolve, reject) =>
        socket.send(b, p.gateways.teltonikaUdpPort, '127.0.0.1', (err) => (err ? reject(err) : resolve())),
      );
    try {
      const records = [fixRecord(T0), fixRecord(T0 + 1000)];
      const datagram = {
        packetId: 0xcafe,
        notUsableByte: 1,
        avlPacketId: 0x2a,
        codec: CODEC_8_EXTENDED,
        records,
      } as const;
      await send(encodeUdpDatagram({ ...datagram, imei: '352093086403671' }));
      await send(encodeUdpDatagram({ ...datagram, imei: '490154203237518', avlPacketId: 0x2b }));
      await send(Buffer.from('00ffcafe', 'hex'));
      for (let i = 0; i < 50 && answers.length === 0; i++) await sleep(20);
      await sleep(200);
      expect(answers.map((a) => a.toString('hex'))).toEqual(['0005cafe012a02']);
      expect(await p.rows('dev-udp')).toHaveLength(2);
      const UDP = { protocol: 'teltonika', transport: 'udp' };
      expect(await p.gateways.metrics.value('badInput', { ...UDP, reason: 'unknown_device' })).toBe(1);
      expect(await p.gateways.metrics.value('badInput', { ...UDP, reason: 'malformed_packet' })).toBe(1);
    } finally {
      socket.close();
    }
  });
});

describe('shutdown', () => {
  it('close() lets a packet being stored finish and be acknowledged, then closes the connection', async () => {
    const q = await startPipeline();
    try {
      await q.registerDevice({ id: 'dev-close', identifier: '350000000000154', protocol: 'teltonika' });
      const idle = await TestDevice.connect(q.gateways.teltonikaPort);
      const d = await TestDevice.connect(q.gateways.teltonikaPort);
      expect(await d.handshake('350000000000154')).toBe(1);
      const lock = await lockTelemetry(q.db);
      let closing: Promise<void>;
      try {
        d.write(frameOf([fixRecord(T0), fixRecord(T0 + 1000)]));
        await sleep(200);
        closing = q.gateways.close();
        // The idle connection goes at once; the busy one waits for its packet.
        await idle.waitClosed(1_000);
        expect(d.open).toBe(true);
      } finally {
        lock.release();
        await lock.done;
      }
      expect((await d.read(4)).readUInt32BE(0)).toBe(2);
      await d.waitClosed();
      await closing;
      expect(await q.rows('dev-close')).toHaveLength(2);
    } finally {
      await q.close();
    }
  });
});
