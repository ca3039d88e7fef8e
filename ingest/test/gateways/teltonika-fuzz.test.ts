import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CODEC_8,
  CODEC_8_EXTENDED,
  CODEC_16,
  decodeAvlData,
  decodeUdpDatagram,
  encodeTcpFrame,
  scanFrame,
  scanHandshake,
  TeltonikaProtocolError,
} from '../../src/gateways/index.js';
import { avlRecordArbitrary } from './support/avl-arbitraries.js';
import { type Pipeline, startPipeline } from './support/pipeline.js';
import { fixRecord, frameOf, int, sleep, TestDevice } from './support/test-device.js';

/**
 * Property tests: random and mutated bytes never crash the decoder or the gateway, and are never
 * acknowledged. The decoder may only ever answer with a value or a TeltonikaProtocolError.
 */

const onlyProtocolErrors = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    if (!(err instanceof TeltonikaProtocolError)) throw err;
  }
};

const validFrame = fc
  .constantFrom(CODEC_8, CODEC_8_EXTENDED, CODEC_16)
  .chain((codec) =>
    fc.array(avlRecordArbitrary(codec), { minLength: 1, maxLength: 3 }).map((r) => encodeTcpFrame(codec, r)),
  );

/** A valid frame with some bytes changed, some cut off or some added. */
const mutatedFrame = fc
  .tuple(
    validFrame,
    fc.array(fc.tuple(fc.nat(), fc.integer({ min: 1, max: 255 })), { minLength: 1, maxLength: 4 }),
    fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 8 })),
  )
  .map(([frame, flips, cut]) => {
    const out = Buffer.from(frame);
    // Leave the 8-byte header alone so the frame is complete and reaches the CRC and the decoder.
    for (const [at, xor] of flips) {
      const i = 8 + (at % (out.length - 8));
      out[i] = (out[i] as number) ^ xor;
    }
    // A shorter frame keeps its declared length: the tail is then taken from what follows.
    return cut > 0 ? out.subarray(0, Math.max(9, out.length - cut)) : out;
  });

/** Would the gateway acknowledge these bytes as one AVL packet? The decoder is the oracle. */
function acknowledgeable(bytes: Buffer): boolean {
  try {
    const scan = scanFrame(bytes, 1 << 20);
    if (scan.kind !== 'frame' || !scan.crcOk) return false;
    decodeAvlData(Buffer.from(scan.data));
    return true;
  } catch {
    return false;
  }
}

describe('decoder fuzz', () => {
  it('random bytes: a packet, a refusal with a reason, or "need more" — never any other error', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 600 }), (bytes) => {
        const buf = Buffer.from(bytes);
        onlyProtocolErrors(() => decodeAvlData(buf));
        onlyProtocolErrors(() => decodeUdpDatagram(buf));
        onlyProtocolErrors(() => scanFrame(buf, 4096));
        onlyProtocolErrors(() => scanHandshake(buf));
      }),
      { numRuns: 3_000 },
    );
  });

  it('mutated valid frames are refused with a reason, never with a crash', () => {
    fc.assert(
      fc.property(mutatedFrame, (bytes) => {
        onlyProtocolErrors(() => {
          const scan = scanFrame(bytes, 1 << 20);
          if (scan.kind === 'frame' && scan.crcOk) decodeAvlData(Buffer.from(scan.data));
        });
      }),
      { numRuns: 3_000 },
    );
  });
});

describe('gateway fuzz over a real socket', () => {
  let p: Pipeline;
  let healthy: TestDevice;
  let ts = Math.floor(Date.now() / 1000) * 1000 - 3_600_000;

  beforeAll(async () => {
    p = await startPipeline({ limits: { teltonikaFrameTimeoutMs: 300, teltonikaMaxDataBytes: 8192 } });
    await p.registerDevice({ id: 'dev-fuzz', identifier: '350000000000501', protocol: 'teltonika' });
    await p.registerDevice({ id: 'dev-ok', identifier: '350000000000519', protocol: 'teltonika' });
    healthy = await TestDevice.connect(p.gateways.teltonikaPort);
    expect(await healthy.handshake('350000000000519')).toBe(1);
  });

  afterAll(async () => {
    healthy?.destroy();
    await p?.close();
  });

  const stillServing = async () => {
    ts += 1000;
    expect(await healthy.send(frameOf([fixRecord(ts, [int(239, 1, 1)])]))).toBe(1);
  };

  it('random bytes before the handshake: never a 01, never a crash', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ minLength: 1, maxLength: 200 }), async (bytes) => {
        const d = await TestDevice.connect(p.gateways.teltonikaPort);
        d.write(Buffer.from(bytes));
        await sleep(40);
        // Either nothing yet or a refusal; an IMEI of random digits is not registered either.
        expect([...d.unread].every((b) => b === 0)).toBe(true);
        d.destroy();
      }),
      { numRuns: 40 },
    );
    await stillServing();
  });

  it('valid packets of random records are always acknowledged in full; only records within the limits are stored', async () => {
    await p.registerDevice({ id: 'dev-random', identifier: '350000000000527', protocol: 'teltonika' });
    const d = await TestDevice.connect(p.gateways.teltonikaPort);
    expect(await d.handshake('350000000000527')).toBe(1);
    await fc.assert(
      fc.asyncProperty(
        fc.array(avlRecordArbitrary(CODEC_8_EXTENDED), { minLength: 1, maxLength: 8 }),
        async (records) => {
          expect(await d.send(encodeTcpFrame(CODEC_8_EXTENDED, records))).toBe(records.length);
        },
      ),
      { numRuns: 40 },
    );
    d.destroy();
    const { rows } = await p.db.query<{ bad: number }>(
      `SELECT count(*)::int AS bad FROM telemetry WHERE device_id = 'dev-random'
         AND (ts > now() + interval '300 seconds' OR speed_kmh > 400 OR abs(lat) > 90 OR (lat = 0 AND lon = 0))`,
    );
    expect(rows[0]?.bad).toBe(0);
    await stillServing();
  });

  it('random and mutated packets after a valid handshake are never acknowledged', async () => {
    const before = (await p.rows('dev-fuzz')).length;
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          mutatedFrame,
          fc.uint8Array({ minLength: 1, maxLength: 300 }).map((b) => Buffer.from(b)),
        ),
        async (bytes) => {
          fc.pre(!acknowledgeable(bytes));
          const d = await TestDevice.connect(p.gateways.teltonikaPort);
          expect(await d.handshake('350000000000501')).toBe(1);
          d.write(bytes);
          await sleep(60);
          expect(d.unread.length).toBe(0);
          d.destroy();
        },
      ),
      { numRuns: 60 },
    );
    expect(await p.rows('dev-fuzz')).toHaveLength(before);
    await stillServing();
    expect(p.logs.filter((l) => l.level >= 50)).toEqual([]);
  });
});
