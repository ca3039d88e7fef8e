/**
 * A cache with a size bound (least recently used evicted first) and a time to live. Lookups keyed
 * by what an unauthenticated client sends (a device identifier, a token) must be bounded: a
 * client inventing a new key per request would otherwise grow the process without limit.
 *
 * An expired entry is not served as fresh, but is kept until evicted: a caller may still use it
 * while its source is unreachable (`get(key).stale`); `dropExpired` makes a miss forget it.
 */

interface Entry<V> {
  value: V;
  expires: number;
}

export interface CacheHit<V> {
  value: V;
  /** The time to live has passed: use only when the source cannot be asked. */
  stale: boolean;
  /** When the time to live ends (or ended): how stale a stale hit is. */
  expires: number;
}

export class BoundedCache<K, V> {
  /** A Map iterates in insertion order: re-inserting on use makes the first key the least recently used. */
  private readonly entries = new Map<K, Entry<V>>();

  constructor(
    readonly maxEntries: number,
    private readonly ttlMs: number,
  ) {
    if (!(maxEntries >= 1)) throw new RangeError('maxEntries must be at least 1');
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: K, now = Date.now()): CacheHit<V> | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    this.entries.delete(key);
    this.entries.set(key, e);
    return { value: e.value, stale: e.expires <= now, expires: e.expires };
  }

  set(key: K, value: V, now = Date.now()): void {
    this.entries.delete(key);
    this.entries.set(key, { value, expires: now + this.ttlMs });
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (oldest.done) break;
      this.entries.delete(oldest.value);
    }
  }

  delete(key: K): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }

  /**
   * Makes every entry stale as of long ago: a caller that serves stale entries for a grace
   * period after their time to live asks the source first, yet can still fall back on them while
   * the source is unreachable (unlike `clear`).
   */
  expireAll(): void {
    for (const e of this.entries.values()) e.expires = Number.NEGATIVE_INFINITY;
  }

  /** Removes the expired entries. */
  dropExpired(now = Date.now()): void {
    for (const [k, e] of this.entries) if (e.expires <= now) this.entries.delete(k);
  }

  *[Symbol.iterator](): IterableIterator<[K, V]> {
    for (const [k, e] of this.entries) yield [k, e.value];
  }
}
