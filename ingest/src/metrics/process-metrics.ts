import { collectDefaultMetrics, Registry } from 'prom-client';

let shared: Registry | undefined;

/**
 * prom-client's default metrics (`process_cpu_user_seconds_total`, `process_cpu_system_seconds_total`,
 * memory, handles, `nodejs_eventloop_lag_*`, `nodejs_gc_duration_seconds`, …) in a registry of
 * their own, made once per process on first use.
 *
 * Once per process rather than once per ingest service: they describe the process, which every
 * service in it shares, and prom-client 15 cannot stop what `collectDefaultMetrics` starts — an
 * enabled `monitorEventLoopDelay` histogram sampling every 10 ms and a `PerformanceObserver` on
 * garbage collection, neither with a way to disable it. Both are unreferenced (they keep no
 * process alive), but made per service they would pile up, one more sampler and observer for
 * every system a test process starts. Not prom-client's global registry either, so nothing else
 * that imports prom-client can collide with these names.
 *
 * The CPU counters count from the first call (prom-client takes `process.cpuUsage()` then as its
 * zero), i.e. from the start of the first ingest service: rates and differences are what mean
 * something (CPU seconds per record = Δcpu / Δrecords).
 */
export function processMetrics(): Registry {
  if (!shared) {
    shared = new Registry();
    collectDefaultMetrics({ register: shared });
  }
  return shared;
}
