/**
 * When the rule state's next checkpoint is due: `RULES_CHECKPOINT_INTERVAL_MS` after the last one
 * at the soonest, and no sooner than keeps the checkpoints' own cost under
 * `RULES_CHECKPOINT_MAX_CPU_SHARE` of the time between them. A checkpoint is the whole state of
 * its vehicles (≈ 3.6 KB and ≈ 44 µs of CPU per vehicle to write, `npm run bench:rules`), so with a
 * fixed 5 s interval a worker judging 20 000 vehicles spent about a fifth of a core writing them
 * (the soak showed it). Spacing them out costs only this: a takeover replays the stream since the
 * last checkpoint, and an embedded process that crashes restarts the runs judged since.
 *
 * The cost is the wall time of the synchronous serialisation, measured by the caller: the
 * process's CPU clock would also count its other threads (the demo fleet's), and on a loaded
 * machine wall time errs long, so checkpoints space out further, never closer.
 */
export class CheckpointPacer {
  private nextDueMs: number;

  constructor(
    private readonly intervalMs: number,
    private readonly maxCostShare: number,
    nowMs: number,
  ) {
    this.nextDueMs = nowMs + intervalMs;
  }

  due(nowMs: number): boolean {
    return nowMs >= this.nextDueMs;
  }

  /** How long until the next checkpoint is due (ms). */
  delayMs(nowMs: number): number {
    return Math.max(0, this.nextDueMs - nowMs);
  }

  /** A checkpoint (or a round of them) started at `startedMs` and cost `costMs`; returns the spacing to the next. */
  done(startedMs: number, costMs: number): number {
    const spacing = Math.max(this.intervalMs, costMs / this.maxCostShare);
    this.nextDueMs = startedMs + spacing;
    return spacing;
  }
}
