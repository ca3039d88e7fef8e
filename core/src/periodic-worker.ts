import type { Logger } from 'pino';

/**
 * The lifecycle every background worker shares (STYLE.md "One place for each cross-cutting
 * concern"): `start()` polls every `intervalMs`, `runOnce()` asks for a round now, `stop()` waits
 * for the round in progress, `health()` says how it is doing. Rounds never overlap within a
 * process: a round asked for while one runs is coalesced into one more round after it, however
 * many ask. The work itself must be idempotent and coordinated through the database or Redis
 * (row locks, consumer groups): every process runs the same worker, and a timer here is only the
 * occasion to look, never the claim to the work.
 */
export interface PeriodicWorkerOptions {
  /** For logs and health: `offers`, `alerts`. */
  name: string;
  /** Milliseconds between the end of a round and the start of the next polled one. */
  intervalMs: number;
  /** One round of the work. A throw is logged with `errorCode` and counted; the poll goes on. */
  round: () => Promise<void>;
  log: Logger;
  /** The `code` of the log line of a failed round; default `WORKER_ROUND_FAILED`. */
  errorCode?: string;
}

export interface WorkerHealth {
  name: string;
  running: boolean;
  rounds: number;
  failures: number;
  /** Failed rounds since the last one that succeeded. */
  consecutiveFailures: number;
  lastRoundAt: string | null;
  lastRoundMs: number | null;
  lastError: string | null;
}

export class PeriodicWorker {
  private timer: NodeJS.Timeout | undefined;
  /** Not polling (never started, or stopped). */
  private stopped = true;
  /** stop() was called: no follow-up round starts any more (until start()). */
  private halted = false;
  private current: Promise<void> | undefined;
  private next: Promise<void> | undefined;
  private readonly stats = {
    rounds: 0,
    failures: 0,
    consecutiveFailures: 0,
    lastRoundAt: null as string | null,
    lastRoundMs: null as number | null,
    lastError: null as string | null,
  };

  constructor(private readonly opts: PeriodicWorkerOptions) {}

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.halted = false;
    this.schedule(0);
  }

  /** Stops polling and waits for the round in progress (a coalesced follow-up does not start). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.halted = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.current?.catch(() => undefined);
    await this.next?.catch(() => undefined);
  }

  /**
   * A round now, or, while one runs, one more right after it (shared by every caller meanwhile).
   * Resolves when a round that started after the call has ended; rejects with its error. Also
   * works on a worker that was never started (tests drive rounds by hand); after stop(), nothing.
   */
  runOnce(): Promise<void> {
    if (this.halted) return Promise.resolve();
    if (!this.current) {
      const round = this.runRound().finally(() => {
        if (this.current === round) this.current = undefined;
      });
      this.current = round;
      return round;
    }
    this.next ??= this.current
      .catch(() => undefined)
      .then(() => {
        this.next = undefined;
        return this.halted ? undefined : this.runOnce();
      });
    return this.next;
  }

  health(): WorkerHealth {
    return { name: this.opts.name, running: !this.stopped, ...this.stats };
  }

  private async runRound(): Promise<void> {
    const started = Date.now();
    try {
      await this.opts.round();
      this.stats.consecutiveFailures = 0;
    } catch (err) {
      this.stats.failures++;
      this.stats.consecutiveFailures++;
      this.stats.lastError = err instanceof Error ? err.message : String(err);
      throw err;
    } finally {
      this.stats.rounds++;
      this.stats.lastRoundAt = new Date().toISOString();
      this.stats.lastRoundMs = Date.now() - started;
    }
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.runOnce()
        .catch((err: unknown) =>
          this.opts.log.warn(
            { err, code: this.opts.errorCode ?? 'WORKER_ROUND_FAILED', worker: this.opts.name },
            `${this.opts.name} round failed`,
          ),
        )
        .finally(() => this.schedule(this.opts.intervalMs));
    }, delayMs);
    this.timer.unref();
  }
}
