import type { Logger } from '@vigia/core';
import type { QuarantineStore } from './quarantine-store.js';

const HOUR_MS = 3_600_000;

export interface QuarantineRetention {
  /** Stops the timer and waits for a purge in progress. */
  stop(): Promise<void>;
}

/**
 * Purges quarantined records older than `days`, at start and then every `everyMs` (an hour).
 * Safe with several processes: each runs the same `DELETE … WHERE received_at < now() - days`,
 * which is idempotent, so two purges at once delete each row once and agree on the result.
 * The timer is unref'd (it never keeps a process alive); a failed purge is logged and retried at
 * the next tick. `days` 0 keeps quarantined records for ever.
 */
export function startQuarantineRetention(deps: {
  store: Pick<QuarantineStore, 'purgeOlderThan'>;
  days: number;
  log: Logger;
  everyMs?: number;
}): QuarantineRetention {
  if (deps.days <= 0) return { stop: async () => {} };
  let running: Promise<void> | undefined;
  let stopped = false;
  const purge = () => {
    if (stopped || running) return;
    running = deps.store
      .purgeOlderThan(deps.days)
      .then((deleted) => {
        if (deleted > 0) {
          deps.log.info({ code: 'QUARANTINE_PURGED', deleted, days: deps.days }, 'old quarantined records purged');
        }
      })
      .catch((err: unknown) => {
        deps.log.warn({ err, code: 'QUARANTINE_PURGE_FAILED' }, 'quarantine purge failed; retried in an hour');
      })
      .finally(() => {
        running = undefined;
      });
  };
  purge();
  const timer = setInterval(purge, deps.everyMs ?? HOUR_MS);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
