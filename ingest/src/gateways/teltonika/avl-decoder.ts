import {
  AVL_CODECS,
  type AvlCodec,
  type AvlPacket,
  type AvlRecord,
  CODEC_8,
  CODEC_8_EXTENDED,
  CODEC_16,
  COMMAND_CODECS,
  codecName,
  type GpsElement,
  IO_WIDTHS,
  type IoElement,
} from './avl-record.js';
import { TeltonikaProtocolError } from './protocol-error.js';

/**
 * Decodes the AVL data of a Teltonika packet — from the codec id to the second record count,
 * the part the TCP CRC covers and the UDP datagram carries after the IMEI — for Codec 8,
 * Codec 8 Extended and Codec 16, following Teltonika's "Data Sending Protocols" documentation.
 *
 * Every read is bounds-checked and every count cross-checked, so a truncated or inconsistent
 * packet is refused with a reason and never half-decoded: a device that is not acknowledged
 * sends the packet again, whereas records decoded from garbage would be stored for good.
 */

/** Per codec: how wide the event id, the counts and the element ids are, and whether NX and generation type exist. */
interface Layout {
  eventIdBytes: 1 | 2;
  countBytes: 1 | 2;
  idBytes: 1 | 2;
  generationType: boolean;
  variableElements: boolean;
}

const LAYOUTS: Record<AvlCodec, Layout> = {
  [CODEC_8]: { eventIdBytes: 1, countBytes: 1, idBytes: 1, generationType: false, variableElements: false },
  [CODEC_8_EXTENDED]: { eventIdBytes: 2, countBytes: 2, idBytes: 2, generationType: false, variableElements: true },
  [CODEC_16]: { eventIdBytes: 2, countBytes: 1, idBytes: 2, generationType: true, variableElements: false },
};

/** Codec 16 generation types 0–7 are defined (on exit, on entrance, on both, reserved, hysteresis, on change, eventual, periodical). */
const MAX_GENERATION_TYPE = 7;
const MAX_PRIORITY = 2;

class Reader {
  pos = 0;
  constructor(private readonly buf: Buffer) {}

  get remaining(): number {
    return this.buf.length - this.pos;
  }

  private need(n: number, what: string): void {
    if (this.remaining < n) {
      throw new TeltonikaProtocolError(
        'MALFORMED_PACKET',
        `${what} runs past the end of the packet (needs ${n} bytes at offset ${this.pos}, ${this.remaining} left)`,
      );
    }
  }

  uint(bytes: 1 | 2 | 4, what: string): number {
    this.need(bytes, what);
    const v = this.buf.readUIntBE(this.pos, bytes);
    this.pos += bytes;
    return v;
  }

  int(bytes: 2 | 4, what: string): number {
    this.need(bytes, what);
    const v = this.buf.readIntBE(this.pos, bytes);
    this.pos += bytes;
    return v;
  }

  bigUint(bytes: 1 | 2 | 4 | 8, what: string): bigint {
    this.need(bytes, what);
    const v = bytes === 8 ? this.buf.readBigUInt64BE(this.pos) : BigInt(this.buf.readUIntBE(this.pos, bytes));
    this.pos += bytes;
    return v;
  }

  bytes(n: number, what: string): Buffer {
    this.need(n, what);
    // A copy: the connection's receive buffer is reused, a record may outlive it.
    const v = Buffer.from(this.buf.subarray(this.pos, this.pos + n));
    this.pos += n;
    return v;
  }
}

const malformed = (message: string) => new TeltonikaProtocolError('MALFORMED_PACKET', message);

export function decodeAvlData(data: Buffer): AvlPacket {
  const r = new Reader(data);
  const codecId = r.uint(1, 'codec id');
  if (!AVL_CODECS.includes(codecId as AvlCodec)) {
    const what = COMMAND_CODECS.has(codecId) ? ' (a command frame, not AVL data)' : '';
    throw new TeltonikaProtocolError('UNSUPPORTED_CODEC', `${codecName(codecId)}${what} is not accepted here`);
  }
  const codec = codecId as AvlCodec;
  const layout = LAYOUTS[codec];
  const count = r.uint(1, 'number of data 1');
  if (count === 0) throw malformed('the packet holds no records');
  const records: AvlRecord[] = [];
  const recordBytes: Buffer[] = [];
  for (let i = 0; i < count; i++) {
    const start = r.pos;
    records.push(decodeRecord(r, layout, i));
    // A copy: the receive buffer is reused, and a quarantined record outlives it.
    recordBytes.push(Buffer.from(data.subarray(start, r.pos)));
  }
  const count2 = r.uint(1, 'number of data 2');
  if (count2 !== count) throw malformed(`number of data 1 (${count}) and number of data 2 (${count2}) differ`);
  if (r.remaining !== 0) throw malformed(`${r.remaining} bytes follow the last record count`);
  return { codec, records, recordBytes };
}

function decodeRecord(r: Reader, layout: Layout, index: number): AvlRecord {
  const at = `record ${index + 1}`;
  const timestamp = r.bigUint(8, `${at} timestamp`);
  if (timestamp > BigInt(Number.MAX_SAFE_INTEGER)) throw malformed(`${at}: timestamp ${timestamp} is not a time`);
  const priority = r.uint(1, `${at} priority`);
  if (priority > MAX_PRIORITY) throw malformed(`${at}: priority ${priority} is not 0, 1 or 2`);
  const gps: GpsElement = {
    longitude: r.int(4, `${at} longitude`) / 1e7,
    latitude: r.int(4, `${at} latitude`) / 1e7,
    altitudeM: r.int(2, `${at} altitude`),
    angleDeg: r.uint(2, `${at} angle`),
    satellites: r.uint(1, `${at} satellites`),
    speedKmh: r.uint(2, `${at} speed`),
  };
  const eventIoId = r.uint(layout.eventIdBytes, `${at} event IO id`);
  let generationType: number | undefined;
  if (layout.generationType) {
    generationType = r.uint(1, `${at} generation type`);
    if (generationType > MAX_GENERATION_TYPE) throw malformed(`${at}: generation type ${generationType} is undefined`);
  }
  const total = r.uint(layout.countBytes, `${at} number of IO elements`);
  const io: IoElement[] = [];
  for (const width of IO_WIDTHS) {
    const n = r.uint(layout.countBytes, `${at} number of ${width}-byte IO elements`);
    for (let k = 0; k < n; k++) {
      const id = r.uint(layout.idBytes, `${at} IO element id`);
      io.push({ id, kind: 'int', bytes: width, value: r.bigUint(width, `${at} IO element ${id}`) });
    }
  }
  if (layout.variableElements) {
    const n = r.uint(2, `${at} number of variable-length IO elements`);
    for (let k = 0; k < n; k++) {
      const id = r.uint(2, `${at} IO element id`);
      const length = r.uint(2, `${at} length of IO element ${id}`);
      io.push({ id, kind: 'bytes', value: r.bytes(length, `${at} IO element ${id}`) });
    }
  }
  if (io.length !== total) throw malformed(`${at}: ${total} IO elements announced, ${io.length} present`);
  const record: AvlRecord = { timestampMs: Number(timestamp), priority, gps, eventIoId, io };
  if (generationType !== undefined) record.generationType = generationType;
  return record;
}
