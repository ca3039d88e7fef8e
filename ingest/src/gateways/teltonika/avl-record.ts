/**
 * The AVL data of Teltonika's data-sending protocols, as decoded: one packet holds one or more
 * records, each a GPS element and the IO elements the device is configured to send.
 */

export const CODEC_8 = 0x08;
export const CODEC_8_EXTENDED = 0x8e;
export const CODEC_16 = 0x10;
export type AvlCodec = typeof CODEC_8 | typeof CODEC_8_EXTENDED | typeof CODEC_16;
export const AVL_CODECS: readonly AvlCodec[] = [CODEC_8, CODEC_8_EXTENDED, CODEC_16];

/** Codec 12, 13, 14 and 15 carry commands and their responses, not AVL records. */
export const COMMAND_CODECS: ReadonlyMap<number, string> = new Map([
  [0x0c, 'Codec 12'],
  [0x0d, 'Codec 13'],
  [0x0e, 'Codec 14'],
  [0x0f, 'Codec 15'],
]);

export const codecName = (codec: number): string =>
  codec === CODEC_8
    ? 'Codec 8'
    : codec === CODEC_8_EXTENDED
      ? 'Codec 8 Extended'
      : codec === CODEC_16
        ? 'Codec 16'
        : (COMMAND_CODECS.get(codec) ?? `codec 0x${codec.toString(16).padStart(2, '0')}`);

export interface GpsElement {
  /** Degrees, from a signed 32-bit integer of 1e-7 degrees (negative west). */
  longitude: number;
  /** Degrees, from a signed 32-bit integer of 1e-7 degrees (negative south). */
  latitude: number;
  altitudeM: number;
  /** Heading, degrees clockwise from north. */
  angleDeg: number;
  /** Satellites in use; 0 means no current fix (the coordinates are the last known ones). */
  satellites: number;
  speedKmh: number;
}

/** An IO element: integers of 1, 2, 4 or 8 bytes (unsigned as received), or NX bytes (Codec 8 Extended). */
export type IoElement =
  | { id: number; kind: 'int'; bytes: 1 | 2 | 4 | 8; value: bigint }
  | { id: number; kind: 'bytes'; value: Buffer };

export const IO_WIDTHS = [1, 2, 4, 8] as const;

export interface AvlRecord {
  /** Epoch milliseconds (UTC). */
  timestampMs: number;
  /** 0 low, 1 high, 2 panic. */
  priority: number;
  gps: GpsElement;
  /** The IO element whose change generated the record; 0 for a periodic record. */
  eventIoId: number;
  /** Codec 16 only: what generated the record (on exit, on entrance, on both, ...). */
  generationType?: number;
  io: IoElement[];
}

export interface AvlPacket {
  codec: AvlCodec;
  records: AvlRecord[];
  /**
   * Each record's bytes as received (timestamp to its last IO element), index for index with
   * `records`: what the quarantine keeps of a record refused but acknowledged.
   */
  recordBytes: Buffer[];
}
