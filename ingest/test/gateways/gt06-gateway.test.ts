import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeGt06, gt06TimeToMs, scanGt06Packet } from '../../src/gateways/index.js';
import { CAPTURE_FILES, type CapturedRead, capturesAvailable, readCaptures } from './support/gt06-captures.js';
import { alarm16, answerTo, heartbeat, location12, location22, login } from './support/gt06-frames.js';
import { lockTelemetry, type Pipeline, startPipeline } from './support/pipeline.js';
import { sleep, TestDevice } from './support/test-device.js';

/**
 * The GT06 gateway over real sockets into a real PostgreSQL: a whole captured day of a real
 * tracker replayed connection by connection, answers only once stored, refusals with reasons,
 * the session continuing across reconnections, the firmware clock setting and the future-time
 * quarantine.
 */

const FRAME_TIMEOUT_MS = 400;
/** An hour ago, on a whole second. */
const T0 = Math.floor(Date.now() / 1000) * 1000 - 3_600_000;
const TCP = { protocol: 'gt06', transport: 'tcp' };
const ANSWER_BYTES = 10;

let p: Pipeline;
const badInput = (reason: string) => p.gateways.metrics.value('badInput', { ...TCP, reason });

beforeAll(async () => {
  p = await startPipeline({ limits: { gt06FrameTimeoutMs: FRAME_TIMEOUT_MS, gt06LoginTimeoutMs: 1_000 } });
});

afterAll(async () => {
  await p?.close();
});

/** A registered GT06 device logged in on a new connection. */
async function loggedIn(imei: string, serial = 1): Promise<TestDevice> {
  const d = await TestDevice.connect(p.gateways.gt06Port);
  d.write(login(imei, serial));
  expect(await d.read(ANSWER_BYTES)).toEqual(answerTo(0x01, serial));
  return d;
}

const describeCaptures = capturesAvailable ? describe : describe.skip;

describeCaptures('a captured day of a real tracker, replayed', () => {
  it('answers every packet after a login exactly as the protocol asks and stores every position once', async () => {
    const imei = '869412074480093';
    await p.registerDevice({ id: 'dev-capture', identifier: imei, protocol: 'gt06' });
    // One TCP connection per source address and port the server logged, in order.
    const connections: CapturedRead[][] = [];
    for (const read of readCaptures(CAPTURE_FILES.withSources)) {
      const last = connections.at(-1);
      if (last && last[0]?.source === read.source) last.push(read);
      else connections.push([read]);
    }
    expect(connections).toHaveLength(20);
    const storedTimes = new Set<number>();
    let previous: TestDevice | undefined;
    let positions = 0;
    for (const [n, reads] of connections.entries()) {
      const d = await TestDevice.connect(p.gateways.gt06Port);
      let loggedInHere = false;
      for (const read of reads) {
        const answers: Buffer[] = [];
        for (let buf = read.bytes; buf.length > 0; ) {
          const scan = scanGt06Packet(buf, 2048);
          if (scan.kind !== 'packet') throw new Error('truncated capture');
          const m = decodeGt06(scan.protocol, scan.content);
          if (m.kind === 'login') loggedInHere = true;
          if (loggedInHere) answers.push(answerTo(scan.protocol, scan.serial));
          if (loggedInHere && m.kind === 'position') {
            positions++;
            storedTimes.add(gt06TimeToMs(m.gps.time));
          }
          buf = buf.subarray(scan.consumed);
        }
        d.write(read.bytes);
        const expected = Buffer.concat(answers);
        if (expected.length > 0) expect(await d.read(expected.length), `${read.file}:${read.line}`).toEqual(expected);
        if (reads.indexOf(read) === 0 && previous) {
          // The tracker logged in again from a new port: its old connection is over.
          await previous.waitClosed();
          previous = undefined;
        }
      }
      if (n === 0) {
        // The capture begins inside a connection whose login it missed: who is sending is
        // unknown, so nothing is answered, and the third such packet closes the connection.
        expect(loggedInHere).toBe(false);
        await d.waitClosed();
        expect(await badInput('not_logged_in')).toBe(3);
      } else {
        previous = d;
      }
    }
    await sleep(100);
    expect(previous?.unread.length).toBe(0);
    previous?.destroy();
    // All but the two of the connection whose login the capture missed.
    expect(positions).toBe(88 + 35 - 2);
    const rows = await p.rows('dev-capture');
    // Once each: a 0x16 ignition event and a 0x32 of the same second are one sample.
    expect(rows.map((r) => r.ts.getTime()).sort()).toEqual([...storedTimes].sort());
    expect(rows.every((r) => r.ignition !== null)).toBe(true);
    expect(rows.some((r) => r.ignition === true) && rows.some((r) => r.ignition === false)).toBe(true);
    expect(await p.gateways.metrics.value('stored', TCP)).toBeGreaterThanOrEqual(rows.length);
  }, 60_000);
});

describe('answers only once stored', () => {
  it('echoes a position only after its row committed', async () => {
    await p.registerDevice({ id: 'dev-ack', identifier: '356307042441013', protocol: 'gt06' });
    const d = await loggedIn('356307042441013');
    const lock = await lockTelemetry(p.db);
    try {
      d.write(location22({ clockMs: T0, lat: -15.7942, lon: -47.8822, speedKmh: 32, course: 90 }, true, 2));
      await sleep(300);
      expect(d.unread.length).toBe(0);
    } finally {
      lock.release();
      await lock.done;
    }
    expect(await d.read(ANSWER_BYTES)).toEqual(answerTo(0x22, 2));
    const rows = await p.rows('dev-ack');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ lat: -15.7942, lon: -47.8822, speed_kmh: 32, heading_deg: 90, ignition: true });
    expect(rows[0]?.ts.getTime()).toBe(T0);
    // A heartbeat carries nothing to store: answered at once.
    d.write(heartbeat(0x44, 3));
    expect(await d.read(ANSWER_BYTES)).toEqual(answerTo(0x13, 3));
    d.destroy();
  });
});

describe('never acknowledged', () => {
  it('a CRC mismatch: dropped, counted, the connection kept and the re-sent packet taken', async () => {
    await p.registerDevice({ id: 'dev-crc', identifier: '352093086403655', protocol: 'gt06' });
    const d = await loggedIn('352093086403655');
    const good = location22({ clockMs: T0 + 1000, lat: -15.8, lon: -47.9 }, false, 5);
    const corrupt = Buffer.from(good);
    corrupt[10] = (corrupt[10] as number) ^ 0x01;
    d.write(corrupt);
    await sleep(200);
    expect(d.unread.length).toBe(0);
    expect(await badInput('crc_mismatch')).toBe(1);
    expect(p.logs.some((l) => l.code === 'CRC_MISMATCH' && l.device === '352093086403655')).toBe(true);
    d.write(good);
    expect(await d.read(ANSWER_BYTES)).toEqual(answerTo(0x22, 5));
    expect(await p.rows('dev-crc')).toHaveLength(1);
    d.destroy();
  });

  it('an unknown IMEI: the login is not answered and the connection closed, with the reason logged', async () => {
    const d = await TestDevice.connect(p.gateways.gt06Port);
    d.write(login('490154203237518', 1));
    await d.waitClosed();
    expect(d.unread.length).toBe(0);
    expect(await badInput('unknown_device')).toBe(1);
    expect(p.logs.some((l) => l.code === 'UNKNOWN_DEVICE' && l.device === '490154203237518')).toBe(true);
  });

  it('an IMEI registered for another protocol is refused the same way', async () => {
    await p.registerDevice({ id: 'dev-tel', identifier: '353201350896384', protocol: 'teltonika' });
    const d = await TestDevice.connect(p.gateways.gt06Port);
    d.write(login('353201350896384', 1));
    await d.waitClosed();
    expect(d.unread.length).toBe(0);
    expect(await badInput('protocol_mismatch')).toBe(1);
  });

  it('a truncated packet: nothing answered, the connection closed when the frame time runs out', async () => {
    await p.registerDevice({ id: 'dev-trunc', identifier: '862785043561105', protocol: 'gt06' });
    const d = await loggedIn('862785043561105');
    const frame = location22({ clockMs: T0, lat: -15.8, lon: -47.9 }, true, 2);
    d.write(frame.subarray(0, frame.length - 4));
    await d.waitClosed(FRAME_TIMEOUT_MS + 2_000);
    expect(d.unread.length).toBe(0);
    expect(await badInput('read_timeout')).toBeGreaterThanOrEqual(1);
    expect(await p.rows('dev-trunc')).toHaveLength(0);
  });

  it('a length of 255 with no body: nothing answered, closed; with 255 bytes of garbage, closed at once', async () => {
    await p.registerDevice({ id: 'dev-255', identifier: '868120189426722', protocol: 'gt06' });
    const empty = await loggedIn('868120189426722');
    empty.write(Buffer.from('7878ff', 'hex'));
    await empty.waitClosed(FRAME_TIMEOUT_MS + 2_000);
    expect(empty.unread.length).toBe(0);

    const garbage = await loggedIn('868120189426722');
    garbage.write(Buffer.concat([Buffer.from('7878ff13', 'hex'), Buffer.alloc(256, 0x41)]));
    await garbage.waitClosed();
    expect(garbage.unread.length).toBe(0);
    expect(await badInput('bad_stop_bits')).toBe(1);
  });

  it('a packet before any login is not answered: only the login says who sends', async () => {
    const d = await TestDevice.connect(p.gateways.gt06Port);
    const before = await badInput('not_logged_in');
    d.write(heartbeat(0x46, 9));
    await sleep(200);
    expect(d.unread.length).toBe(0);
    expect(await badInput('not_logged_in')).toBe(before + 1);
    d.destroy();
  });
});

describe('the session continues across connections', () => {
  it('a position without ACC on a new connection takes the ACC the last heartbeat reported', async () => {
    await p.registerDevice({ id: 'dev-move', identifier: '359339077003915', protocol: 'gt06' });
    const first = await loggedIn('359339077003915', 1);
    first.write(heartbeat(0x46, 2)); // ACC on
    expect(await first.read(ANSWER_BYTES)).toEqual(answerTo(0x13, 2));
    // The tracker's link dropped without a FIN; it reconnects from a new port and logs in again.
    const second = await loggedIn('359339077003915', 1);
    await first.waitClosed();
    second.write(location12({ clockMs: T0 + 5_000, lat: -1.4558, lon: -48.4902, speedKmh: 20 }, 2));
    expect(await second.read(ANSWER_BYTES)).toEqual(answerTo(0x12, 2));
    const rows = await p.rows('dev-move');
    expect(rows).toMatchObject([{ lat: -1.4558, lon: -48.4902, ignition: true }]);
    expect(p.logs.some((l) => l.code === 'SESSION_MOVED' && l.device === '359339077003915')).toBe(true);
    second.destroy();
  });
});

describe('profiles and clocks', () => {
  it('gt06-taxi: the door alarm (0x14) opens the door; ACC from the alarm packet', async () => {
    await p.registerDevice({ id: 'dev-taxi', identifier: '358480081234566', protocol: 'gt06', profile: 'gt06-taxi' });
    const d = await loggedIn('358480081234566');
    d.write(alarm16({ clockMs: T0 + 2_000, lat: -15.79, lon: -47.88 }, 0x46, 0x14, 2));
    d.write(location22({ clockMs: T0 + 3_000, lat: -15.79, lon: -47.88 }, false, 3));
    expect(await d.read(2 * ANSWER_BYTES)).toEqual(Buffer.concat([answerTo(0x16, 2), answerTo(0x22, 3)]));
    const rows = await p.rows('dev-taxi');
    expect(rows.map((r) => [r.door_open, r.ignition])).toEqual([
      [true, true],
      [null, false],
    ]);
    d.destroy();
  });

  it('gt06-local-time-brt: a firmware on Brasília time is stored at the right UTC instant', async () => {
    await p.registerDevice({
      id: 'dev-brt',
      identifier: '354018119873227',
      protocol: 'gt06',
      profile: 'gt06-local-time-brt',
    });
    const d = await loggedIn('354018119873227');
    // The firmware's clock reads three hours less than UTC.
    d.write(location22({ clockMs: T0 - 3 * 3_600_000, lat: -15.79, lon: -47.88 }, true, 2));
    expect(await d.read(ANSWER_BYTES)).toEqual(answerTo(0x22, 2));
    expect((await p.rows('dev-brt')).map((r) => r.ts.getTime())).toEqual([T0]);
    d.destroy();
  });

  it('a firmware on UTC+8 with the UTC profile: refused as a future time, quarantined with the packet, answered', async () => {
    await p.registerDevice({ id: 'dev-utc8', identifier: '867584034567894', protocol: 'gt06' });
    const d = await loggedIn('867584034567894');
    const frame = location22({ clockMs: Date.now() + 8 * 3_600_000, lat: -15.79, lon: -47.88 }, true, 2);
    d.write(frame);
    // Answered: the record is kept (quarantine), so the tracker must move on, not re-send it forever.
    expect(await d.read(ANSWER_BYTES)).toEqual(answerTo(0x22, 2));
    expect(await p.rows('dev-utc8')).toHaveLength(0);
    expect(await p.gateways.metrics.value('rejected', { ...TCP, reason: 'future_timestamp' })).toBe(1);
    const { rows } = await p.db.query<{ code: string; raw: Buffer }>(
      `SELECT code, raw FROM quarantined_records WHERE device_identifier = $1`,
      ['867584034567894'],
    );
    expect(rows).toEqual([{ code: 'FUTURE_TIMESTAMP', raw: frame }]);
    d.destroy();
  });
});

describe('metrics', () => {
  it('/metrics carries the GT06 series', async () => {
    const text = await p.gateways.metrics.toPrometheus();
    expect(text).toContain('vigia_gateway_records_stored_total{protocol="gt06",transport="tcp"}');
    expect(text).toMatch(/vigia_gateway_bad_input_total\{protocol="gt06",transport="tcp",reason="crc_mismatch"\} 1/);
    expect(text).toMatch(/vigia_gateway_connections_total\{protocol="gt06",transport="tcp"\} [1-9]/);
  });
});
