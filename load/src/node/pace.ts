/**
 * The Node runner's executor, the two of k6's the scenarios use: `ratePerS` > 0 starts task `seq`
 * at `seq / ratePerS` seconds (constant-arrival-rate), with at most `concurrency` in flight (a
 * start that finds them all busy waits, as k6 does past `maxVUs`, and is counted late); 0 runs
 * `concurrency` loops back to back (constant-vus). Either way nothing starts after `durationMs`.
 */
export interface PaceOptions {
  concurrency: number;
  ratePerS: number;
  durationMs: number;
  task: (seq: number) => Promise<void>;
}

export interface PaceResult {
  /** Tasks started (and finished). */
  started: number;
  /** From the first start to the last task's end (ms). */
  elapsedMs: number;
  /** Starts that waited for a free slot beyond their time by more than 100 ms: the system could not keep up. */
  late: number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export async function pace(opts: PaceOptions): Promise<PaceResult> {
  const t0 = performance.now();
  const end = t0 + opts.durationMs;
  let next = 0;
  let late = 0;
  const worker = async () => {
    for (;;) {
      const seq = next++;
      if (opts.ratePerS > 0) {
        const at = t0 + (seq * 1000) / opts.ratePerS;
        // A run that fell behind stops at its end too, as k6's executor does: the starts it did not
        // make are what the system could not take.
        if (at >= end || performance.now() >= end) return;
        const wait = at - performance.now();
        if (wait > 0) await sleep(wait);
        else if (wait < -100) late++;
      } else if (performance.now() >= end) return;
      await opts.task(seq);
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, worker));
  // `next` overshoots by one per worker: each took a number it did not start.
  return { started: next - opts.concurrency, elapsedMs: performance.now() - t0, late };
}
