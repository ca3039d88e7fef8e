/**
 * Reads a Chromium performance trace (`browser.stopTracing()`, Trace Event Format) for the map
 * benchmark: the renderer main thread's top-level tasks, split into one window per live update.
 */

interface TraceEvent {
  name: string;
  ph: string;
  ts: number;
  dur?: number;
  /** Thread (CPU) time of the event, in µs: what the thread ran, without the time it waited for a core. */
  tdur?: number;
  pid: number;
  tid: number;
}

/** One live update as the page's main thread paid for it, in milliseconds. */
export interface UpdateCost {
  /** Every top-level task from the one that received the update to the one that received the next. */
  busyMs: number;
  /**
   * The CPU time of the same tasks: on a loaded machine a task's wall time includes the time its
   * thread waited for a core, which is the machine's doing, not the page's.
   */
  cpuMs: number;
  /** The longest of those tasks: how long the page could not answer input or draw a frame. */
  longestTaskMs: number;
  tasks: number;
}

/**
 * `markName` is a `performance.mark` the page sets as each update arrives (the benchmark's init
 * script does, in the WebSocket message handler). The main thread is the one that marked.
 */
export function updateCosts(trace: Buffer, markName: string): UpdateCost[] {
  const { traceEvents } = JSON.parse(trace.toString('utf8')) as { traceEvents: TraceEvent[] };
  const marks = traceEvents.filter((e) => e.name === markName).sort((a, b) => a.ts - b.ts);
  const first = marks[0];
  if (!first) return [];
  const tasks = topLevel(
    traceEvents.filter(
      (e) => e.name === 'RunTask' && e.ph === 'X' && e.pid === first.pid && e.tid === first.tid && e.dur !== undefined,
    ),
  );
  // Each update's window opens with the task during which its mark was set.
  const starts = marks.map(
    (mark) => tasks.find((t) => t.ts <= mark.ts && mark.ts <= t.ts + (t.dur ?? 0))?.ts ?? mark.ts,
  );
  const costs: UpdateCost[] = [];
  for (let i = 0; i + 1 < starts.length; i++) {
    const from = starts[i] as number;
    const to = starts[i + 1] as number;
    if (to <= from) continue;
    const inWindow = tasks.filter((t) => t.ts >= from && t.ts < to);
    const durations = inWindow.map((t) => (t.dur ?? 0) / 1000);
    costs.push({
      busyMs: durations.reduce((sum, d) => sum + d, 0),
      cpuMs: inWindow.reduce((sum, t) => sum + (t.tdur ?? t.dur ?? 0), 0) / 1000,
      longestTaskMs: Math.max(0, ...durations),
      tasks: inWindow.length,
    });
  }
  return costs;
}

/** Tasks run inside another (a nested run loop) are part of it: counted once. */
function topLevel(tasks: TraceEvent[]): TraceEvent[] {
  const sorted = [...tasks].sort((a, b) => a.ts - b.ts);
  const kept: TraceEvent[] = [];
  let until = Number.NEGATIVE_INFINITY;
  for (const task of sorted) {
    if (task.ts < until) continue;
    kept.push(task);
    until = task.ts + (task.dur ?? 0);
  }
  return kept;
}

export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
}
