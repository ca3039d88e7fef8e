import {
  closeSync,
  fdatasyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import type { Telemetry } from '@vigia/core';
import type { Logger } from 'pino';
import { decodeTelemetry, encodeTelemetry } from './telemetry-codec.js';

/**
 * The local spool: where accepted records wait while the database is unreachable. Records are
 * appended as NDJSON to numbered segment files and flushed to disk (fdatasync) before the
 * caller acknowledges them, so an acknowledged record survives a crash of the process or the
 * machine. Segments are replayed oldest first and deleted only after their records are
 * committed; a segment replayed twice (a crash between commit and delete) is harmless, since
 * the database drops rows it already holds.
 */
/** A segment is closed for appends past this size, so replay reads files of bounded size. */
const SEGMENT_BYTES = 16 * 1024 * 1024;

export class TelemetrySpool {
  private current: { seq: number; fd: number; bytes: number } | undefined;
  /**
   * Bytes waiting across all segments, read from disk once at start and then kept by `append`
   * and `remove` (the spool's directory is this process's alone): the batch writer asks whether
   * the spool is empty before every batch, and a directory listing each time cost the ingest a
   * syscall or more per batch.
   */
  private pendingBytes: number;

  constructor(
    private readonly dir: string,
    private readonly maxBytes: number,
    private readonly log: Logger,
  ) {
    mkdirSync(dir, { recursive: true });
    this.pendingBytes = this.segments().reduce((sum, seq) => sum + statSync(this.path(seq)).size, 0);
  }

  private segments(): number[] {
    return readdirSync(this.dir)
      .map((f) => /^segment-(\d{12})\.ndjson$/.exec(f)?.[1])
      .filter((s): s is string => s !== undefined)
      .map(Number)
      .sort((a, b) => a - b);
  }

  private path(seq: number): string {
    return join(this.dir, `segment-${String(seq).padStart(12, '0')}.ndjson`);
  }

  /** Bytes waiting on disk across all segments. */
  get bytes(): number {
    return this.pendingBytes;
  }

  get isEmpty(): boolean {
    return this.pendingBytes === 0;
  }

  /** Appends and flushes to disk; returns false (nothing written) when the spool is full. */
  append(records: readonly Telemetry[]): boolean {
    const data = records.map((r) => `${encodeTelemetry(r)}\n`).join('');
    const size = Buffer.byteLength(data);
    if (this.bytes + size > this.maxBytes) return false;
    if (this.current && this.current.bytes > SEGMENT_BYTES) {
      closeSync(this.current.fd);
      this.current = undefined;
    }
    if (!this.current) {
      const seq = (this.segments().at(-1) ?? 0) + 1;
      this.current = { seq, fd: openSync(this.path(seq), 'a'), bytes: 0 };
    }
    writeSync(this.current.fd, data);
    fdatasyncSync(this.current.fd);
    this.current.bytes += size;
    this.pendingBytes += size;
    return true;
  }

  /**
   * The oldest segment's records, closing it for appends first if it is the current one.
   * A line that cannot be read (a torn write at a crash) is logged and skipped: it was never
   * acknowledged, since the ack waits for the flush.
   */
  oldest(): { seq: number; records: Telemetry[] } | undefined {
    const seq = this.segments()[0];
    if (seq === undefined) return undefined;
    if (this.current?.seq === seq) {
      closeSync(this.current.fd);
      this.current = undefined;
    }
    const records: Telemetry[] = [];
    const lines = readFileSync(this.path(seq), 'utf8').split('\n');
    lines.forEach((line, i) => {
      if (line === '') return;
      try {
        records.push(decodeTelemetry(line));
      } catch (err) {
        this.log.warn(
          { err, code: 'SPOOL_LINE_UNREADABLE', segment: seq, line: i + 1 },
          'skipped an unreadable spool line',
        );
      }
    });
    return { seq, records };
  }

  /** After the segment's records are committed. */
  remove(seq: number): void {
    if (this.current?.seq === seq) {
      closeSync(this.current.fd);
      this.current = undefined;
    }
    const size = statSync(this.path(seq)).size;
    unlinkSync(this.path(seq));
    this.pendingBytes = Math.max(0, this.pendingBytes - size);
  }

  close(): void {
    if (this.current) closeSync(this.current.fd);
    this.current = undefined;
  }
}
