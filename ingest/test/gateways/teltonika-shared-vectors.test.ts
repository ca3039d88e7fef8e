import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  AVL_CODECS,
  type AvlCodec,
  COMMAND_CODECS,
  decodeAvlData,
  decodeUdpDatagram,
  encodeUdpAck,
  scanFrame,
  TeltonikaProtocolError,
} from '../../src/gateways/index.js';

/**
 * The 36 frames of shared/data/protocol_frames/teltonika_frames.tsv: test vectors of two
 * open-source Teltonika decoders (alim-zanibekov/teltonika, filipkroca/teltonikaparser; see
 * shared/data/SOURCES.md), with `expect` ok or must_fail as in their own tests. The shared data
 * lives beside the project, not in it: without it these tests are skipped, saying why.
 */
const TSV = fileURLToPath(new URL('../../../../shared/data/protocol_frames/teltonika_frames.tsv', import.meta.url));
const available = existsSync(TSV);
if (!available) console.warn(`Skipping the shared Teltonika vectors: ${TSV} is absent (shared data not mounted)`);

interface Vector {
  line: number;
  source: string;
  test: string;
  expect: 'ok' | 'must_fail';
  transport: string;
  codec: string;
  count: string;
  hex: string;
}

function vectors(): Vector[] {
  const [header, ...rows] = readFileSync(TSV, 'utf8').trim().split('\n');
  expect(header?.split('\t')).toEqual([
    'source_repo',
    'commit',
    'path',
    'lines',
    'test_function',
    'expect',
    'transport',
    'codec_id',
    'records_or_cmd_qty',
    'hex',
  ]);
  return rows.map((row, i) => {
    const c = row.split('\t');
    return {
      line: i + 2,
      source: c[0] ?? '',
      test: c[4] ?? '',
      expect: c[5] as Vector['expect'],
      transport: c[6] ?? '',
      codec: c[7] ?? '',
      count: c[8] ?? '',
      hex: c[9] ?? '',
    };
  });
}

/** Several datagrams captured back to back: each starts with its own length. */
function splitDatagrams(bytes: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let at = 0;
  while (at + 2 <= bytes.length) {
    const end = at + 2 + bytes.readUInt16BE(at);
    out.push(bytes.subarray(at, Math.min(end, bytes.length)));
    at = end;
  }
  return out;
}

/** What the gateway does with a TCP frame: the number of AVL records it would acknowledge, or why not. */
function tcpOutcome(bytes: Buffer): { records: number } | { refused: string } {
  try {
    const scan = scanFrame(bytes, 1 << 20);
    if (scan.kind !== 'frame') return { refused: `incomplete (${scan.kind})` };
    if (scan.consumed !== bytes.length) return { refused: 'bytes beyond the frame' };
    if (!scan.crcOk) return { refused: 'CRC_MISMATCH' };
    return { records: decodeAvlData(Buffer.from(scan.data)).records.length };
  } catch (err) {
    if (err instanceof TeltonikaProtocolError) return { refused: err.code };
    throw err;
  }
}

function udpOutcome(bytes: Buffer): { records: number } | { refused: string } {
  try {
    return { records: decodeUdpDatagram(bytes).records.length };
  } catch (err) {
    if (err instanceof TeltonikaProtocolError) return { refused: err.code };
    throw err;
  }
}

describe.skipIf(!available)('shared Teltonika vectors (teltonika_frames.tsv)', () => {
  const all = available ? vectors() : [];

  it('holds the 36 frames SOURCES.md describes', () => {
    expect(all).toHaveLength(36);
  });

  it('decodes every valid AVL frame with its record count; command frames pass the CRC and are not taken', () => {
    for (const v of all.filter((x) => x.expect === 'ok')) {
      const codec = Number.parseInt(v.codec, 16);
      const bytes = Buffer.from(v.hex, 'hex');
      const label = `line ${v.line} (${v.test}, ${v.transport} ${v.codec})`;
      if (v.transport === 'tcp') {
        const outcome = tcpOutcome(bytes);
        if (AVL_CODECS.includes(codec as AvlCodec)) expect(outcome, label).toEqual({ records: Number(v.count) });
        else {
          expect(COMMAND_CODECS.has(codec), label).toBe(true);
          expect(outcome, label).toEqual({ refused: 'UNSUPPORTED_CODEC' });
        }
      } else {
        const [first, ...rest] = splitDatagrams(bytes);
        expect(udpOutcome(first as Buffer), label).toEqual({ records: Number(v.count) });
        for (const d of rest) expect(udpOutcome(d), `${label}, later datagram`).toMatchObject({ records: 1 });
      }
    }
  });

  it('refuses every must_fail frame and acknowledges none', () => {
    const refusals = all
      .filter((x) => x.expect === 'must_fail')
      .map((v) => {
        const bytes = Buffer.from(v.hex, 'hex');
        const outcome = v.transport === 'udp' ? udpOutcome(bytes) : tcpOutcome(bytes);
        return { line: v.line, outcome };
      });
    expect(refusals).toHaveLength(13);
    for (const r of refusals) expect(r.outcome, `line ${r.line}`).toHaveProperty('refused');
  });

  it('reads filipkroca ExampleDecode (UDP, Codec 8, 4 records) as its documented output says', () => {
    const v = all.find((x) => x.source === 'filipkroca/teltonikaparser' && x.test === 'ExampleDecode');
    const d = decodeUdpDatagram(Buffer.from(v?.hex ?? '', 'hex'));
    expect(d.imei).toBe('352094089397464');
    expect(d.records).toHaveLength(4);
    const first = d.records[0]!;
    // UtimeMs:1528069090050 Priority:1 Lat:491403133 Lng:170206400 Altitude:211 Angle:303 VisSat:19 Speed:50 EventID:66
    expect(first.timestampMs).toBe(1_528_069_090_050);
    expect(first.priority).toBe(1);
    expect(first.gps).toEqual({
      latitude: 49.1403133,
      longitude: 17.02064,
      altitudeM: 211,
      angleDeg: 303,
      satellites: 19,
      speedKmh: 50,
    });
    expect(first.eventIoId).toBe(66);
    expect(first.io).toHaveLength(27);
    // {IOID:66 Value:[111 216]} external voltage; {IOID:16 Value:[0 45 51 198]} total odometer.
    expect(first.io.find((e) => e.id === 66)).toMatchObject({ bytes: 2, value: 0x6fd8n });
    expect(first.io.find((e) => e.id === 16)).toMatchObject({ bytes: 4, value: 0x002d33c6n });
    expect(d.records.map((r) => r.timestampMs)).toEqual([
      1_528_069_090_050, 1_528_069_089_000, 1_528_069_087_000, 1_528_069_070_050,
    ]);
    // Response:[0 5 202 254 1 40 4]
    expect([...encodeUdpAck(d, d.records.length)]).toEqual([0, 5, 202, 254, 1, 40, 4]);
  });

  it('reads the first filipkroca Codec 8 Extended datagram as its documented output says', () => {
    const v = all.find((x) => x.source === 'filipkroca/teltonikaparser' && x.test.startsWith('ExampleDecode ('));
    const [first] = splitDatagrams(Buffer.from(v?.hex ?? '', 'hex'));
    const d = decodeUdpDatagram(first as Buffer);
    // IMEI:352093085698206 CodecID:142 ... UtimeMs:1545914096000 Priority:2 ... EventID:252, 19 elements
    expect(d.imei).toBe('352093085698206');
    expect(d.codec).toBe(0x8e);
    expect(d.records[0]).toMatchObject({ timestampMs: 1_545_914_096_000, priority: 2, eventIoId: 252 });
    expect(d.records[0]?.io).toHaveLength(19);
    expect(d.records[0]?.io.find((e) => e.id === 18)).toMatchObject({ bytes: 2, value: 0xff22n });
    // Response:[0 5 202 254 1 1 1]
    expect([...encodeUdpAck(d, 1)]).toEqual([0, 5, 202, 254, 1, 1, 1]);
  });
});
