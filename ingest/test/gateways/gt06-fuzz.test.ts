import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeGt06, encodeGt06Packet, Gt06ProtocolError, scanGt06Packet } from '../../src/gateways/index.js';
import { alarm16, answerTo, heartbeat, location22, login } from './support/gt06-frames.js';
import { type Pipeline, startPipeline } from './support/pipeline.js';
import { sleep, TestDevice } from './support/test-device.js';

/**
 * Property tests, seeded and bounded in time: mutated and malformed GT06 packets never crash the
 * decoders or the gateway and are never answered; over a real socket, the only answer a run may
 * get is the one to the valid heartbeat sent after the malformed bytes.
 */

const SEED = 20_251_017;
const FRAME_TIMEOUT_MS = 250;
const IMEI = '869412074480093';
const T0 = Math.floor(Date.now() / 1000) * 1000 - 3_600_000;

const validPacket = fc
  .tuple(
    fc.constantFrom('heartbeat', 'location', 'alarm'),
    fc.integer({ min: 0, max: 0xffff }),
    fc.double({ min: -33, max: 5, noNaN: true }),
    fc.double({ min: -73, max: -35, noNaN: true }),
  )
  .map(([kind, serial, lat, lon]) => {
    const fix = { clockMs: T0 + serial * 1000, lat, lon, speedKmh: serial % 120, course: serial % 360 };
    if (kind === 'heartbeat') return heartbeat(0x46, serial);
    if (kind === 'location') return location22(fix, serial % 2 === 0, serial);
    return alarm16(fix, 0x46, 0x14, serial);
  });

/** A valid packet with bytes changed past the start bits, cut short, or both. */
const mutatedPacket = fc
  .tuple(
    validPacket,
    fc.array(fc.tuple(fc.nat(), fc.integer({ min: 1, max: 255 })), { minLength: 1, maxLength: 4 }),
    fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 12 })),
  )
  .map(([packet, flips, cut]) => {
    const out = Buffer.from(packet);
    for (const [at, xor] of flips) {
      const i = 2 + (at % (out.length - 2));
      out[i] = (out[i] as number) ^ xor;
    }
    return cut > 0 ? out.subarray(0, Math.max(3, out.length - cut)) : out;
  });

/** Minimum content of each protocol's layout: anything shorter, with a good CRC, is malformed. */
const MIN_CONTENT: Record<number, number> = { 1: 8, 18: 26, 19: 3, 22: 23, 34: 29, 38: 23, 39: 23, 50: 30, 16: 18 };

/** Framing and CRC intact, content malformed: too short for its protocol, or a protocol nobody takes. */
const malformedContent = fc
  .oneof(
    fc
      .constantFrom(...Object.keys(MIN_CONTENT).map(Number))
      .chain((protocol) =>
        fc.tuple(
          fc.constant(protocol),
          fc.uint8Array({ maxLength: (MIN_CONTENT[protocol] as number) - 1 }),
          fc.integer({ min: 0, max: 0xffff }),
        ),
      ),
    fc.tuple(
      fc.integer({ min: 0, max: 255 }).filter((n) => !(n in MIN_CONTENT) && n !== 0x15),
      fc.uint8Array({ maxLength: 40 }),
      fc.integer({ min: 0, max: 0xffff }),
    ),
  )
  .map(([protocol, content, serial]) => encodeGt06Packet(protocol, content, serial, serial % 7 === 0));

/** Would the gateway answer these bytes as one packet? The frame and protocol decoders are the oracle. */
function answerable(bytes: Buffer): boolean {
  try {
    const scan = scanGt06Packet(bytes, 2048);
    if (scan.kind !== 'packet' || !scan.crcOk) return false;
    decodeGt06(scan.protocol, Buffer.from(scan.content));
    return true;
  } catch (err) {
    if (err instanceof Gt06ProtocolError) return false;
    throw err;
  }
}

describe('decoders', () => {
  it('answer any bytes with a packet, "incomplete" or a Gt06ProtocolError, nothing else', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.boolean(), (bytes, framed) => {
        const buf = framed ? Buffer.concat([Buffer.from('7878', 'hex'), bytes]) : Buffer.from(bytes);
        try {
          const scan = scanGt06Packet(buf, 2048);
          if (scan.kind === 'packet' && scan.crcOk) decodeGt06(scan.protocol, Buffer.from(scan.content));
        } catch (err) {
          if (!(err instanceof Gt06ProtocolError)) throw err;
        }
      }),
      { seed: SEED, numRuns: 3_000 },
    );
  });

  it('a malformed content is refused even with a good CRC', () => {
    fc.assert(
      fc.property(malformedContent, (packet) => {
        expect(answerable(packet)).toBe(false);
      }),
      { seed: SEED, numRuns: 2_000 },
    );
  });
});

describe('over a real socket', () => {
  let p: Pipeline;

  beforeAll(async () => {
    p = await startPipeline({ limits: { gt06FrameTimeoutMs: FRAME_TIMEOUT_MS, gt06MaxConsecutiveBadPackets: 3 } });
    await p.registerDevice({ id: 'dev-fuzz', identifier: IMEI, protocol: 'gt06' });
  });

  afterAll(async () => {
    await p?.close();
  });

  /**
   * Logs in, sends `bytes`, then a valid heartbeat whose serial nothing else uses: the run may see
   * that heartbeat's answer (the malformed bytes were dropped) or the connection closed (framing
   * lost, or the heartbeat swallowed by a length the mutation enlarged) — never another answer.
   */
  async function noAnswerTo(bytes: Buffer): Promise<void> {
    const d = await TestDevice.connect(p.gateways.gt06Port);
    try {
      d.write(login(IMEI, 1));
      expect(await d.read(10)).toEqual(answerTo(0x01, 1));
      d.write(bytes);
      d.write(heartbeat(0x46, 0xbeef));
      const deadline = Date.now() + FRAME_TIMEOUT_MS + 1_000;
      const marker = answerTo(0x13, 0xbeef);
      while (Date.now() < deadline && d.open && !d.unread.includes(marker)) await sleep(5);
      const got = d.unread;
      expect(
        got.length === 0 || got.equals(marker),
        `answered ${got.toString('hex')} to ${bytes.toString('hex')}`,
      ).toBe(true);
    } finally {
      d.destroy();
    }
  }

  it('mutated packets: no answer unless still a valid packet, no crash', async () => {
    const out = await fc.check(
      fc.asyncProperty(mutatedPacket, async (bytes) => {
        fc.pre(!answerable(bytes));
        await noAnswerTo(bytes);
      }),
      { seed: SEED, numRuns: 200, interruptAfterTimeLimit: 8_000 },
    );
    expect(out.failed, fc.defaultReportMessage(out)).toBe(false);
    // Bounded in time, not in runs: make sure the bound still leaves a real sample.
    expect(out.numRuns).toBeGreaterThanOrEqual(30);
  }, 30_000);

  it('well-framed packets with a malformed content: no answer, no crash', async () => {
    const out = await fc.check(
      fc.asyncProperty(malformedContent, async (bytes) => {
        await noAnswerTo(bytes);
      }),
      { seed: SEED, numRuns: 150, interruptAfterTimeLimit: 6_000 },
    );
    expect(out.failed, fc.defaultReportMessage(out)).toBe(false);
    expect(out.numRuns).toBeGreaterThanOrEqual(30);
  }, 30_000);

  it('the gateway still stores and answers a healthy device afterwards', async () => {
    const d = await TestDevice.connect(p.gateways.gt06Port);
    d.write(login(IMEI, 1));
    expect(await d.read(10)).toEqual(answerTo(0x01, 1));
    d.write(location22({ clockMs: T0 - 60_000, lat: -15.79, lon: -47.88 }, true, 77));
    expect(await d.read(10)).toEqual(answerTo(0x22, 77));
    const rows = await p.rows('dev-fuzz');
    expect(rows.map((r) => r.ts.getTime())).toContain(T0 - 60_000);
    d.destroy();
  });
});
