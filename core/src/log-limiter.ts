import type { Logger } from 'pino';

/**
 * At most `maxPerInterval` log lines per `code` per `intervalMs`; past that, lines of that code are
 * counted, not written, and one summary line (`LOG_LINES_SUPPRESSED`, with the code and how many)
 * follows when the interval ends. Refusals of unauthenticated input (an unknown id, a bad frame)
 * are logged for the operator; without a bound, anyone sending them fast fills the disk with the
 * same line. The counters in /metrics still count every one.
 *
 * One limiter per component (a gateway, a route family); the codes are the fixed set of the
 * component's refusal codes, and the table of codes is bounded too, in case one is not.
 */

export type LimitedLevel = 'warn' | 'info' | 'error' | 'debug';

export interface LogLimiterOptions {
  /** Lines written per code per interval; default 20. */
  maxPerInterval?: number;
  /** Default 60 s. */
  intervalMs?: number;
  /** Codes tracked at once; past it, the oldest window is summarised and dropped. Default 1 000. */
  maxCodes?: number;
}

interface Window {
  start: number;
  written: number;
  suppressed: number;
  log: Logger;
}

export const LOG_LINES_SUPPRESSED = 'LOG_LINES_SUPPRESSED';

export class LogLimiter {
  private readonly maxPerInterval: number;
  private readonly intervalMs: number;
  private readonly maxCodes: number;
  private readonly windows = new Map<string, Window>();
  private timer: NodeJS.Timeout | undefined;

  constructor(opts: LogLimiterOptions = {}) {
    this.maxPerInterval = opts.maxPerInterval ?? 20;
    this.intervalMs = opts.intervalMs ?? 60_000;
    this.maxCodes = opts.maxCodes ?? 1_000;
  }

  warn(log: Logger, fields: { code: string } & Record<string, unknown>, msg: string): void {
    this.write('warn', log, fields, msg);
  }

  info(log: Logger, fields: { code: string } & Record<string, unknown>, msg: string): void {
    this.write('info', log, fields, msg);
  }

  error(log: Logger, fields: { code: string } & Record<string, unknown>, msg: string): void {
    this.write('error', log, fields, msg);
  }

  /** Writes the line unless its code is over its budget; true when it was written. */
  write(level: LimitedLevel, log: Logger, fields: { code: string } & Record<string, unknown>, msg: string): boolean {
    const now = Date.now();
    let w = this.windows.get(fields.code);
    if (w && now - w.start >= this.intervalMs) {
      this.summarise(fields.code, w);
      w = undefined;
    }
    if (!w) {
      if (this.windows.size >= this.maxCodes) this.evictOldest();
      w = { start: now, written: 0, suppressed: 0, log };
      this.windows.set(fields.code, w);
    }
    if (w.written < this.maxPerInterval) {
      w.written++;
      log[level](fields, msg);
      return true;
    }
    w.suppressed++;
    this.arm();
    return false;
  }

  /** Writes the summary of every window with suppressed lines and forgets them all (on close). */
  flush(): void {
    for (const [code, w] of this.windows) this.summarise(code, w);
    this.windows.clear();
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Codes being tracked now (for tests). */
  get trackedCodes(): number {
    return this.windows.size;
  }

  private summarise(code: string, w: Window): void {
    this.windows.delete(code);
    if (w.suppressed === 0) return;
    w.log.warn(
      { code: LOG_LINES_SUPPRESSED, suppressedCode: code, suppressed: w.suppressed, intervalMs: this.intervalMs },
      `${w.suppressed} more '${code}' lines suppressed in ${Math.round(this.intervalMs / 1000)} s`,
    );
  }

  private evictOldest(): void {
    const oldest = this.windows.keys().next();
    if (oldest.done) return;
    const w = this.windows.get(oldest.value);
    if (w) this.summarise(oldest.value, w);
  }

  /** A summary is due even if no further line of the code comes; the timer never holds the process. */
  private arm(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      const now = Date.now();
      for (const [code, w] of this.windows) {
        if (now - w.start >= this.intervalMs) this.summarise(code, w);
      }
      if (![...this.windows.values()].some((w) => w.suppressed > 0)) {
        clearInterval(this.timer);
        this.timer = undefined;
      }
    }, this.intervalMs);
    this.timer.unref();
  }
}
