/**
 * Counts failed authentications (401) per client address in a fixed window; past `max` the
 * address is refused (429) until its window ends. One instance per process, shared by the REST
 * check (access.ts) and the Socket.IO handshake, so both paths spend one budget.
 *
 * Not @fastify/rate-limit: it counts every request in `onRequest`, before the outcome is known,
 * and has no way to count only the failures; a limiter of all requests would throttle honest
 * dashboards and devices long before it slowed a token guesser.
 *
 * Memory is bounded: at most `maxAddresses` entries; when full, expired entries are swept, then
 * the oldest dropped (an attacker rotating addresses can only make the limiter forget, never grow).
 */
export interface FailedAuthLimits {
  /** Failures per address per window; 0 disables the limiter. */
  max: number;
  windowMs: number;
  maxAddresses?: number;
}

interface Window {
  failures: number;
  resetAt: number;
}

export class FailedAuthLimiter {
  private readonly windows = new Map<string, Window>();
  private readonly maxAddresses: number;

  constructor(
    private readonly limits: FailedAuthLimits,
    private readonly now: () => number = Date.now,
  ) {
    this.maxAddresses = limits.maxAddresses ?? 10_000;
  }

  /** Seconds until `address` may try again, or undefined when it may try now. */
  retryAfterS(address: string): number | undefined {
    if (this.limits.max === 0) return undefined;
    const w = this.windows.get(address);
    if (!w) return undefined;
    const now = this.now();
    if (w.resetAt <= now) {
      this.windows.delete(address);
      return undefined;
    }
    return w.failures >= this.limits.max ? Math.max(1, Math.ceil((w.resetAt - now) / 1000)) : undefined;
  }

  /** Records one failed authentication from `address`. */
  fail(address: string): void {
    if (this.limits.max === 0) return;
    const now = this.now();
    const w = this.windows.get(address);
    if (w && w.resetAt > now) {
      w.failures++;
      return;
    }
    if (w) this.windows.delete(address);
    if (this.windows.size >= this.maxAddresses) this.evict(now);
    this.windows.set(address, { failures: 1, resetAt: now + this.limits.windowMs });
  }

  /** Addresses currently tracked (for tests and metrics). */
  get size(): number {
    return this.windows.size;
  }

  private evict(now: number): void {
    for (const [address, w] of this.windows) if (w.resetAt <= now) this.windows.delete(address);
    // Still full: drop the oldest (a Map iterates in insertion order).
    while (this.windows.size >= this.maxAddresses) {
      const oldest = this.windows.keys().next();
      if (oldest.done) break;
      this.windows.delete(oldest.value);
    }
  }
}
