import type { Database } from '@vigia/db';

/**
 * Records a device gateway acknowledged but refused to store. A device that is not acknowledged
 * sends the same records again forever, so a record refused for good (latitude 91, a time a year
 * ahead) is acknowledged; for "nothing acknowledged is lost" to hold it is kept here, raw bytes
 * and reason, until QUARANTINE_RETENTION_DAYS have passed. SQL only: no HTTP, no timers.
 */

/** One refused record, as a gateway hands it over. */
export interface QuarantinedRecord {
  /** `teltonika`, `osmand`, `gt06`, ... */
  protocol: string;
  /** `tcp`, `udp`, `http`; null when the protocol has one. */
  transport?: string | null | undefined;
  /** The identifier the device sent (IMEI, OsmAnd id). */
  deviceIdentifier: string;
  /** The registry device, when the identifier is a registered one. */
  deviceId?: string | null | undefined;
  /** Why it was refused: the sink's code (INVALID_FIX, FUTURE_TIMESTAMP, ...). */
  code: string;
  message: string;
  /** The record's bytes as received (for a text protocol, the request's text). */
  raw: Buffer;
  /** The fields as decoded, when decoding got that far; must be JSON-serialisable (see `toJsonSafe`). */
  decoded?: unknown;
  /** Default: now. */
  receivedAt?: Date | undefined;
}

/**
 * Where a gateway puts the records it acknowledges without storing. `quarantine` resolves only
 * once the rows are committed: a gateway acknowledges after it, as after the telemetry write.
 * The same raw bytes from the same device are kept once (a re-sent packet).
 */
export interface QuarantineSink {
  quarantine(entries: readonly QuarantinedRecord[]): Promise<void>;
}

/** A quarantined record as listed. */
export interface QuarantineRow {
  id: string;
  receivedAt: Date;
  protocol: string;
  transport: string | null;
  deviceIdentifier: string;
  deviceId: string | null;
  code: string;
  message: string;
  raw: Buffer;
  decoded: unknown;
}

export interface QuarantineFilter {
  protocol?: string | undefined;
  deviceIdentifier?: string | undefined;
  code?: string | undefined;
  from?: Date | undefined;
  to?: Date | undefined;
}

/** Keyset position: the last row of the previous page (newest first). */
export interface QuarantineCursor {
  receivedAt: Date;
  id: string;
}

/**
 * PostgreSQL text and jsonb cannot hold NUL: a refused record carrying one must still be kept, so
 * in the text columns it becomes U+FFFD; the raw bytes keep the original.
 */
export function textSafe(s: string): string {
  return s.includes('\u0000') ? s.split('\u0000').join('\uFFFD') : s;
}

/**
 * Decoded fields as JSON: bigint (Teltonika 8-byte IO elements) as a decimal string, a Buffer as
 * hex, a Map as an object, a non-finite number as a string (JSON would turn it into null), and
 * NUL replaced (see `textSafe`).
 */
export function toJsonSafe(value: unknown): unknown {
  if (typeof value === 'string') return textSafe(value);
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  if (Buffer.isBuffer(value)) return value.toString('hex');
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (value instanceof Map) return Object.fromEntries([...value].map(([k, v]) => [String(k), toJsonSafe(v)]));
  if (Array.isArray(value)) return value.map(toJsonSafe);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => [textSafe(k), toJsonSafe(v)]),
    );
  }
  return value;
}

const COLUMNS = 9;
/** Parameters per INSERT stay far below PostgreSQL's 65 535 even for a full Codec 8 packet (255 records). */
const MAX_ROWS_PER_INSERT = 500;

const SELECT = `SELECT id::text AS id, received_at AS "receivedAt", protocol, transport,
  device_identifier AS "deviceIdentifier", device_id AS "deviceId", code, message, raw, decoded
  FROM quarantined_records`;

export class QuarantineStore implements QuarantineSink {
  constructor(private readonly db: Database) {}

  async quarantine(entries: readonly QuarantinedRecord[]): Promise<void> {
    for (let start = 0; start < entries.length; start += MAX_ROWS_PER_INSERT) {
      const chunk = entries.slice(start, start + MAX_ROWS_PER_INSERT);
      const params: unknown[] = [];
      const tuples = chunk.map((e) => {
        const decoded = e.decoded === undefined || e.decoded === null ? null : JSON.stringify(toJsonSafe(e.decoded));
        params.push(
          e.receivedAt ?? new Date(),
          e.protocol,
          e.transport ?? null,
          textSafe(e.deviceIdentifier),
          e.deviceId ?? null,
          textSafe(e.code),
          textSafe(e.message),
          e.raw,
          decoded,
        );
        const b = params.length - COLUMNS;
        return `($${b + 1}, $${b + 2}, $${b + 3}, $${b + 4}, $${b + 5}, $${b + 6}, $${b + 7}, $${b + 8}, $${b + 9}::jsonb)`;
      });
      await this.db.query(
        `INSERT INTO quarantined_records
           (received_at, protocol, transport, device_identifier, device_id, code, message, raw, decoded)
         VALUES ${tuples.join(', ')}
         ON CONFLICT DO NOTHING`,
        params,
      );
    }
  }

  /** Newest first, `limit` rows after `cursor`; `next` is the cursor of the following page, if any. */
  async list(
    filter: QuarantineFilter,
    page: { limit: number; cursor?: QuarantineCursor | undefined },
  ): Promise<{ items: QuarantineRow[]; next: QuarantineCursor | null }> {
    const params: unknown[] = [];
    const where: string[] = [];
    const add = (clause: (p: string) => string, value: unknown) => {
      params.push(value);
      where.push(clause(`$${params.length}`));
    };
    if (filter.protocol) add((p) => `protocol = ${p}`, filter.protocol);
    if (filter.deviceIdentifier) add((p) => `device_identifier = ${p}`, filter.deviceIdentifier);
    if (filter.code) add((p) => `code = ${p}`, filter.code);
    if (filter.from) add((p) => `received_at >= ${p}`, filter.from);
    if (filter.to) add((p) => `received_at < ${p}`, filter.to);
    if (page.cursor) {
      params.push(page.cursor.receivedAt, page.cursor.id);
      where.push(`(received_at, id) < ($${params.length - 1}, $${params.length}::bigint)`);
    }
    params.push(page.limit + 1);
    const { rows } = await this.db.query<QuarantineRow>(
      `${SELECT} ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
       ORDER BY received_at DESC, id DESC LIMIT $${params.length}`,
      params,
    );
    const more = rows.length > page.limit;
    const items = more ? rows.slice(0, page.limit) : rows;
    const last = items.at(-1);
    return { items, next: more && last ? { receivedAt: last.receivedAt, id: last.id } : null };
  }

  /**
   * Deletes what is older than `days`; idempotent, so several processes may run it at once.
   * Returns the rows deleted by this call.
   */
  async purgeOlderThan(days: number): Promise<number> {
    const { rowCount } = await this.db.query(
      `DELETE FROM quarantined_records WHERE received_at < now() - make_interval(days => $1::int)`,
      [days],
    );
    return rowCount;
  }
}
