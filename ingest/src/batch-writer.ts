import { AppError, isDatabaseUnavailable, type Telemetry } from '@vigia/core';
import type { Database } from '@vigia/db';
import type { Logger } from 'pino';
import { partitionOf } from './rules/partitions/partitioning.js';
import type { TelemetrySpool } from './spool/telemetry-spool.js';
import { storeTelemetry, type WriteOutcome } from './telemetry-store.js';

/**
 * A record the database refused for its own values (a NUL the edge let through, a date
 * PostgreSQL cannot represent, a vehicle that no longer exists): refused alone, for good, so the
 * records it was batched with are stored. Sending it again cannot succeed.
 */
export interface UnstorableRecord {
  code: 'UNSTORABLE_RECORD';
  message: string;
}

/** What became of one record given to `write`. */
export type RecordOutcome = WriteOutcome | UnstorableRecord;

/**
 * Whether a failed write is about the records' values rather than the database's state:
 * SQLSTATE class 22 (data exception: invalid byte sequence, date out of range, numeric overflow)
 * or 23 (integrity constraint: a foreign key, a check), or a value the statement could not even
 * be built from (an invalid Date). Everything else (unreachable, overloaded, deadlock, a bug) is
 * not cured by leaving a record out, so it is not split but answered as before.
 */
export function isDataError(err: unknown): boolean {
  if (isDatabaseUnavailable(err)) return false;
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^(22|23)[0-9A-Z]{3}$/.test(code)) return true;
  return err instanceof RangeError;
}

export interface BatchWriterOptions {
  db: Database;
  log: Logger;
  /** Records in one transaction at most. */
  maxRecords: number;
  /** How long the first record of a batch waits for company. */
  maxWaitMs: number;
  /** Records queued or being written, across all callers, before `write` refuses with 503. */
  maxPending: number;
  /**
   * Transactions in flight at once (1 for PGlite, which has one connection). Concurrent ones
   * never share a vehicle (see `BatchWriter`).
   */
  concurrency: number;
  /**
   * Called after each commit with the records it stored and, of those, the ones that advanced
   * their vehicle's live state.
   */
  onCommitted(batch: { accepted: Telemetry[]; advanced: Telemetry[] }): void;
  /**
   * Called with records that were spooled (so already acknowledged to their devices) and that the
   * database then refused for their values on replay; they are logged in full before this. The
   * spool segment is removed only once it resolves (a failure retries the segment later).
   */
  onUnstorableSpooled?(records: { record: Telemetry; outcome: UnstorableRecord }[]): Promise<void> | void;
  /** Where accepted records wait while the database is unreachable; none = answer 503 instead. */
  spool?: TelemetrySpool;
  /** How often the spool is tried against the database. */
  replayIntervalMs?: number;
  /** Told of every batch stored in the database (`IngestMetrics`): once per batch, not per record. */
  metrics?: BatchMetrics;
}

export interface BatchMetrics {
  batchWritten(records: number, seconds: number): void;
}

interface Pending {
  record: Telemetry;
  settle(outcome: RecordOutcome | Error): void;
}

/**
 * A share of the vehicles (by the same FNV-1a hash that partitions the rules): its records wait
 * here in arrival order, and while a transaction holding some of them is in flight (`busy`), no
 * other transaction takes any.
 */
interface Lane {
  queue: Pending[];
  busy: boolean;
}

/**
 * Enough lanes that a batch of `maxRecords` rarely has to take a lane's queue only in part, and
 * few enough that walking them per batch costs nothing next to the batch.
 */
const LANES = 64;

/**
 * Gathers records from concurrent requests into few, large transactions. A caller's promise
 * settles only after the transaction holding its records has committed, so an HTTP 200 (or a
 * device ACK) always means durably stored. The queue is bounded: past `maxPending` records
 * `write` throws OVERLOADED (HTTP 503 + Retry-After) instead of letting memory grow.
 *
 * Transactions in flight at once never share a vehicle. `telemetry_store()` locks the live rows of
 * its batch's vehicles, so two batches of the same vehicles ran one after the other anyway, and
 * the waiting cost more than it saved: measured on PostgreSQL 15, two writers of 1 000-record
 * batches of the same 200 vehicles stored 12 k records/s together against 25 k/s for one writer
 * alone, and 42 k/s when each had its own half of the vehicles. So records queue in lanes by
 * vehicle, and a batch owns the lanes it took records from until it commits: a vehicle's records
 * are stored in the order they arrived, one transaction at a time.
 *
 * When the database cannot be reached, a batch goes to the spool instead (flushed to disk before
 * the callers are answered) and is replayed in order once the database is back; while anything
 * is spooled, new batches queue behind it in the spool rather than overtaking it.
 *
 * A record the database refuses for its values is refused alone (`storeIsolating`): the records
 * of other requests and devices that shared its transaction are stored all the same.
 */
export class BatchWriter {
  private readonly lanes: Lane[] = Array.from({ length: LANES }, () => ({ queue: [], busy: false }));
  /** Where the next batch starts taking lanes: round the lanes, so none waits behind the others for ever. */
  private nextLane = 0;
  /** Records waiting in lanes that no transaction in flight holds: what a new batch could take. */
  private free = 0;
  private pending = 0;
  private inFlight = 0;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly idleWaiters: (() => void)[] = [];
  private readonly replayTimer: NodeJS.Timeout | undefined;
  private replaying: Promise<void> | undefined;

  constructor(private readonly opts: BatchWriterOptions) {
    if (opts.spool) {
      this.replayTimer = setInterval(() => {
        this.replaying ??= this.replay().finally(() => {
          this.replaying = undefined;
        });
      }, opts.replayIntervalMs ?? 1000);
      this.replayTimer.unref();
    }
  }

  get pendingRecords(): number {
    return this.pending;
  }

  write(records: readonly Telemetry[]): Promise<RecordOutcome[]> {
    if (this.closed) return Promise.reject(new AppError('SHUTTING_DOWN', 'The ingest service is shutting down', 503));
    if (records.length === 0) return Promise.resolve([]);
    if (this.pending + records.length > this.opts.maxPending) {
      return Promise.reject(
        new AppError('OVERLOADED', 'Too many records waiting to be stored; retry shortly', 503, {
          pendingRecords: this.pending,
        }),
      );
    }
    this.pending += records.length;
    const settled = records.map(
      (record) =>
        new Promise<RecordOutcome>((resolve, reject) => {
          const lane = this.lanes[partitionOf(record.vehicleId, LANES)]!;
          lane.queue.push({
            record,
            settle: (o) => (o instanceof Error ? reject(o) : resolve(o)),
          });
          if (!lane.busy) this.free++;
        }),
    );
    this.schedule();
    return Promise.all(settled);
  }

  private schedule(): void {
    if (this.free >= this.opts.maxRecords || this.opts.maxWaitMs === 0) {
      this.pump();
    } else if (!this.timer) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.pump();
      }, this.opts.maxWaitMs);
    }
  }

  private pump(): void {
    while (this.free > 0 && this.inFlight < this.opts.concurrency) {
      // Group commit: a batch that is not full waits for the one in flight and grows meanwhile
      // (it is sent the moment that one commits). One record per request at a few hundred
      // requests a second otherwise made a batch of two or three records per round trip, and the
      // round trip (the socket write to PostgreSQL above all) cost more CPU than the records.
      // Full batches still go up to `concurrency` at once; an idle writer waits no longer.
      if (this.inFlight > 0 && this.free < this.opts.maxRecords) break;
      const { batch, held } = this.takeBatch();
      this.inFlight++;
      void this.flush(batch).finally(() => {
        this.inFlight--;
        this.pending -= batch.length;
        for (const lane of held) {
          lane.busy = false;
          this.free += lane.queue.length;
        }
        if (this.free > 0) this.pump();
        else if (this.inFlight === 0) for (const wake of this.idleWaiters.splice(0)) wake();
      });
    }
  }

  /** Up to `maxRecords` records from the lanes no transaction holds, which it now holds. */
  private takeBatch(): { batch: Pending[]; held: Lane[] } {
    const batch: Pending[] = [];
    const held: Lane[] = [];
    const start = this.nextLane;
    for (let i = 0; i < LANES && batch.length < this.opts.maxRecords; i++) {
      const lane = this.lanes[(start + i) % LANES]!;
      if (lane.busy || lane.queue.length === 0) continue;
      const taken = lane.queue.splice(0, this.opts.maxRecords - batch.length);
      for (const p of taken) batch.push(p);
      lane.busy = true;
      held.push(lane);
      // What it left behind waits for this transaction: no longer free.
      this.free -= taken.length + lane.queue.length;
      this.nextLane = (start + i + 1) % LANES;
    }
    return { batch, held };
  }

  private async flush(batch: Pending[]): Promise<void> {
    const spool = this.opts.spool;
    if (spool && !spool.isEmpty) {
      this.toSpool(spool, batch);
      return;
    }
    try {
      const outcomes = await this.storeTimed(batch.map((p) => p.record));
      for (const [i, p] of batch.entries()) p.settle(outcomes[i] ?? 'duplicate');
    } catch (err) {
      // Records of this batch stored before the failure (when it was split) are stored again
      // from the spool or the device's resend: (device_id, ts) makes that a duplicate, no more.
      if (spool && isDatabaseUnavailable(err)) {
        this.opts.log.warn(
          { err, code: 'DATABASE_UNAVAILABLE', records: batch.length },
          'database unreachable: spooling',
        );
        this.toSpool(spool, batch);
        return;
      }
      this.opts.log.error({ err, code: 'TELEMETRY_WRITE_FAILED', records: batch.length }, 'telemetry batch not stored');
      const failure = new AppError('STORAGE_UNAVAILABLE', 'The records could not be stored; retry', 503);
      for (const p of batch) p.settle(failure);
    }
  }

  /** `storeIsolating`, timed for the metrics: a batch that failed as a whole is not counted. */
  private async storeTimed(records: readonly Telemetry[]): Promise<RecordOutcome[]> {
    const started = performance.now();
    const outcomes = await this.storeIsolating(records);
    this.opts.metrics?.batchWritten(records.length, (performance.now() - started) / 1000);
    return outcomes;
  }

  /**
   * Stores `records` in one transaction (one statement); when the database refuses it for the values of some
   * record (`isDataError`), splits it in halves and stores each, down to the single record to
   * blame, which alone is refused. One device's bad record thus never costs the devices batched
   * with it their data. A batch of n records with k bad ones takes at most 2·k·⌈log2 n⌉ + 1
   * transactions, and none more when nothing is wrong. Any other failure is thrown.
   */
  private async storeIsolating(records: readonly Telemetry[]): Promise<RecordOutcome[]> {
    try {
      // One statement, its own transaction (telemetry-store.ts): no BEGIN/COMMIT round trips.
      const { outcomes, accepted, advanced } = await storeTelemetry(this.opts.db, records);
      if (accepted.length > 0) this.opts.onCommitted({ accepted, advanced });
      return outcomes;
    } catch (err) {
      if (!isDataError(err)) throw err;
      const [only] = records;
      if (records.length === 1 && only) return [this.unstorable(only, err)];
      this.opts.log.warn(
        { code: 'TELEMETRY_BATCH_SPLIT', records: records.length, sqlstate: sqlstateOf(err) },
        'a record of the batch cannot be stored: splitting the batch to isolate it',
      );
      const half = Math.ceil(records.length / 2);
      const first = await this.storeIsolating(records.slice(0, half));
      const second = await this.storeIsolating(records.slice(half));
      return [...first, ...second];
    }
  }

  private unstorable(record: Telemetry, err: unknown): UnstorableRecord {
    const sqlstate = sqlstateOf(err);
    // The database's own words stay in the log: they name tables and columns.
    this.opts.log.warn(
      {
        code: 'UNSTORABLE_RECORD',
        sqlstate,
        device: record.deviceId,
        vehicle: record.vehicleId,
        ts: Number.isNaN(record.ts.getTime()) ? String(record.ts) : record.ts.toISOString(),
        reason: err instanceof Error ? err.message : String(err),
      },
      'record refused by the database; the rest of its batch is stored',
    );
    return {
      code: 'UNSTORABLE_RECORD',
      message: `The database cannot store this record's values${sqlstate ? ` (SQLSTATE ${sqlstate})` : ''}; do not send it again`,
    };
  }

  /** Durable on local disk counts as accepted; a full spool refuses (503) so devices keep their data. */
  private toSpool(spool: TelemetrySpool, batch: Pending[]): void {
    let stored = false;
    try {
      stored = spool.append(batch.map((p) => p.record));
    } catch (err) {
      this.opts.log.error({ err, code: 'SPOOL_WRITE_FAILED' }, 'spool not writable');
    }
    if (stored) {
      for (const p of batch) p.settle('accepted');
      return;
    }
    const failure = new AppError(
      'STORAGE_UNAVAILABLE',
      'The database is unreachable and the spool is full; retry',
      503,
    );
    for (const p of batch) p.settle(failure);
  }

  /** Moves spooled records into the database, oldest segment first, while it answers. */
  private async replay(): Promise<void> {
    const spool = this.opts.spool;
    if (!spool || spool.isEmpty) return;
    for (let segment = spool.oldest(); segment; segment = spool.oldest()) {
      try {
        for (let i = 0; i < segment.records.length; i += this.opts.maxRecords) {
          const chunk = segment.records.slice(i, i + this.opts.maxRecords);
          // A spooled record the database refuses must not block the spool (and every record
          // queued behind it) for ever: it is isolated, logged in full and handed on.
          const outcomes = await this.storeTimed(chunk);
          const refused = chunk.flatMap((record, j) => {
            const outcome = outcomes[j];
            return typeof outcome === 'object' ? [{ record, outcome }] : [];
          });
          if (refused.length > 0) {
            this.opts.log.error(
              { code: 'SPOOLED_RECORD_UNSTORABLE', records: refused.map((r) => r.record) },
              'spooled records, already acknowledged, refused by the database',
            );
            await this.opts.onUnstorableSpooled?.(refused);
          }
        }
      } catch (err) {
        this.opts.log.debug({ err, code: 'SPOOL_REPLAY_DEFERRED' }, 'database still unreachable');
        return;
      }
      spool.remove(segment.seq);
      this.opts.log.info({ code: 'SPOOL_REPLAYED', records: segment.records.length }, 'spooled records stored');
      if (this.closed) return;
    }
  }

  /** Stops taking records and resolves once everything queued has been written. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (this.replayTimer) clearInterval(this.replayTimer);
    this.pump();
    if (this.inFlight > 0 || this.pending > 0) {
      await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
    }
    await this.replaying;
    // What is still spooled stays on disk and is replayed by the next start.
    this.opts.spool?.close();
  }
}

function sqlstateOf(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}
