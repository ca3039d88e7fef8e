import type { Logger } from '@vigia/core';

const BACKOFF_BASE_MS = 1_000;
const BACKOFF_MAX_MS = 60_000;
/** Log every Nth consecutive failure at warn level (the rest at debug): a fleet offline for an hour must not flood the log. */
const LOG_EVERY_NTH_FAILURE = 30;

/**
 * When an emulated device may try again: exponential backoff with jitter after each failure
 * (or the server's Retry-After), reset by a success — what real trackers do so that a server
 * coming back is not hit by the whole fleet in the same second.
 */
export class RetryPacer {
  private failures = 0;
  private notBeforeMs = 0;

  constructor(
    private readonly device: string,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  get ready(): boolean {
    return this.now() >= this.notBeforeMs;
  }

  succeeded(): void {
    if (this.failures > 0) this.log.info({ device: this.device, after: this.failures }, 'telemetry flowing again');
    this.failures = 0;
    this.notBeforeMs = 0;
  }

  failed(code: string, message: string, details: Record<string, unknown> = {}, retryAfterMs?: number): void {
    this.failures++;
    const backoff = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** Math.min(this.failures - 1, 10));
    const wait =
      retryAfterMs !== undefined ? Math.max(retryAfterMs, BACKOFF_BASE_MS) : backoff * (0.5 + Math.random() / 2);
    this.notBeforeMs = this.now() + wait;
    const entry = { device: this.device, code, failures: this.failures, retryInMs: Math.round(wait), ...details };
    if (this.failures === 1 || this.failures % LOG_EVERY_NTH_FAILURE === 0) this.log.warn(entry, message);
    else this.log.debug(entry, message);
  }
}
