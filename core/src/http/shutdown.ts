import type { Logger } from 'pino';

/**
 * On SIGTERM/SIGINT run the close steps once, in order, then exit; a second signal or the
 * timeout exits at once. Steps are what the process needs to lose nothing: stop intake, let
 * in-flight writes commit, then close connections.
 */
export function exitOnSignals(close: () => Promise<void>, log: Logger, timeoutMs: number): void {
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) {
      log.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    stopping = true;
    log.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      log.error({ code: 'SHUTDOWN_TIMEOUT', timeoutMs }, 'shutdown took too long: exiting');
      process.exit(1);
    }, timeoutMs);
    timer.unref();
    close().then(
      () => {
        log.info('stopped cleanly');
        process.exit(0);
      },
      (err: unknown) => {
        log.error({ err, code: 'SHUTDOWN_FAILED' }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}
