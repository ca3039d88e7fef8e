import { AppError, isDatabaseUnavailable, type Telemetry } from '@vigia/core';
import type { Database } from '@vigia/db';
import type { Logger } from 'pino';
import type { TelemetrySpool } from './spool/telemetry-spool.js';
import { storeTelemetry, type WriteOutcome } from './telemetry-store.js';

export interface BatchWriterOptions {
  db: Database;
  log: Logger;
  /** Records in one transaction at most. */
  maxRecords: number;
  /** How long the first record of a batch waits for company. */
  maxWaitMs: number;
  /** Records queued or being written, across all callers, before `write` refuses with 503. */
  maxPending: number;
  /** Transactions in flight at once (1 for PGlite, which has one connection). */
  concurrency: number;
  /**
   * Called after each commit with the records it stored and, of those, the ones that advanced
   * their vehicle's live state.
   */
  onCommitted(batch: { accepted: Telemetry[]; advanced: Telemetry[] }): void;
  /** Where accepted records wait while the database is unreachable; none = answer 503 instead. */
  spool?: TelemetrySpool;
  /** How often the spool is tried against the database. */
  replayIntervalMs?: number;
}

interface Pending {
  record: Telemetry;
  settle(outcome: WriteOutcome | Error): void;
}

/**
 * Gathers records from concurrent requests into few, large transactions. A caller's promise
 * settles only after the transaction holding its records has committed, so an HTTP 200 (or a
 * device ACK) always means durably stored. The queue is bounded: past `maxPending` records
 * `write` throws OVERLOADED (HTTP 503 + Retry-After) instead of letting memory grow.
 *
 * When the database cannot be reached, a batch goes to the spool instead (flushed to disk before
 * the callers are answered) and is replayed in order once the database is back; while anything
 * is spooled, new batches queue behind it in the spool rather than overtaking it.
 */
export class BatchWriter {
  private queue: Pending[] = [];
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

  write(records: readonly Telemetry[]): Promise<WriteOutcome[]> {
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
        new Promise<WriteOutcome>((resolve, reject) => {
          this.queue.push({
            record,
            settle: (o) => (o instanceof Error ? reject(o) : resolve(o)),
          });
        }),
    );
    this.schedule();
    return Promise.all(settled);
  }

  private schedule(): void {
    if (this.queue.length >= this.opts.maxRecords || this.opts.maxWaitMs === 0) {
      this.pump();
    } else if (!this.timer) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.pump();
      }, this.opts.maxWaitMs);
    }
  }

  private pump(): void {
    while (this.queue.length > 0 && this.inFlight < this.opts.concurrency) {
      const batch = this.queue.splice(0, this.opts.maxRecords);
      this.inFlight++;
      void this.flush(batch).finally(() => {
        this.inFlight--;
        this.pending -= batch.length;
        if (this.queue.length > 0) this.pump();
        else if (this.inFlight === 0) for (const wake of this.idleWaiters.splice(0)) wake();
      });
    }
  }

  private async flush(batch: Pending[]): Promise<void> {
    const records = batch.map((p) => p.record);
    const spool = this.opts.spool;
    if (spool && !spool.isEmpty) {
      this.toSpool(spool, batch);
      return;
    }
    try {
      const { outcomes, accepted, advanced } = await this.opts.db.transaction((tx) => storeTelemetry(tx, records));
      for (const [i, p] of batch.entries()) p.settle(outcomes[i] ?? 'duplicate');
      if (accepted.length > 0) this.opts.onCommitted({ accepted, advanced });
    } catch (err) {
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
          const { accepted, advanced } = await this.opts.db.transaction((tx) => storeTelemetry(tx, chunk));
          if (accepted.length > 0) this.opts.onCommitted({ accepted, advanced });
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
    if (this.inFlight > 0 || this.queue.length > 0) {
      await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
    }
    await this.replaying;
    // What is still spooled stays on disk and is replayed by the next start.
    this.opts.spool?.close();
  }
}
