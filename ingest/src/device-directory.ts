import { AppError, BoundedCache, isDatabaseUnavailable, type Pack, type ServiceType } from '@vigia/core';
import type { Database } from '@vigia/db';

/** A registered device with the vehicle it is in: what ingest needs to accept and attribute a record. */
export interface DeviceEntry {
  deviceId: string;
  identifier: string;
  vehicleId: string;
  tokenHash: string;
  /** `native`, `osmand`, `teltonika`, ...: how the device talks. */
  protocol: string;
  /** The device profile that maps its raw inputs to telemetry fields (protocol gateways). */
  profile: string | null;
  plate: string;
  operatorId: string | null;
  pack: Pack;
  serviceType: ServiceType;
}

interface TokenWaiter {
  resolve(entry: DeviceEntry | undefined): void;
  reject(err: unknown): void;
}

const SELECT_DEVICE = `
  SELECT d.id AS "deviceId", d.identifier, d.vehicle_id AS "vehicleId", d.token_hash AS "tokenHash",
         d.protocol, d.profile,
         v.plate, v.operator_id AS "operatorId", v.pack, v.service_type AS "serviceType"
  FROM devices d JOIN vehicles v ON v.id = d.vehicle_id
  WHERE d.retired_at IS NULL`;

/** Re-reads of expiring entries gather this long, then go to the database as one query. */
const REFRESH_GATHER_MS = 250;

/**
 * Device lookups by identifier and by token hash, cached for `ttlMs` so the hot path does not
 * query the registry per record. Unknown identifiers are cached too (a misconfigured device
 * re-sends forever); the registry publishes `device-changed` on the bus when a device is
 * created, rotated, moved or retired, and every process drops those entries at once. While the
 * database is unreachable an expired entry is still used, so known devices keep sending (their
 * records go to the spool); a device never seen gets a 503 and retries.
 *
 * An entry of a known device is re-read in the background once its time to live has passed, and
 * served meanwhile, for at most one more `ttlMs`: at 2,000 devices and a 10 s TTL, expiries come
 * about 200 a second, one per request, so batching the misses of one event-loop turn still cost a
 * statement per request, and in the embedded mode PGlite's one connection spent three of its four
 * statements on them. The re-reads of `REFRESH_GATHER_MS` go as one query. The TTL is a safety net
 * (changes invalidate at once over the bus), so a retired device whose bus message was lost is
 * refused within two TTLs instead of one. An entry stale for longer is looked up before answering.
 *
 * Every cache is bounded (`maxEntries`, least recently used evicted): the keys come from
 * unauthenticated clients, and one inventing an identifier or a token per request must not grow
 * the process. Unknown keys have caches of their own, so a flood of made-up identifiers evicts
 * only other made-up identifiers, never a registered device the outage fallback relies on.
 */
export class DeviceDirectory {
  private readonly known: BoundedCache<string, DeviceEntry>;
  private readonly unknown: BoundedCache<string, true>;
  private readonly knownTokens: BoundedCache<string, DeviceEntry>;
  private readonly unknownTokens: BoundedCache<string, true>;
  /** Each vehicle's entry as last looked up: the vehicle facts a fleet update carries. */
  private readonly byVehicle: BoundedCache<string, DeviceEntry>;
  /** Token hashes missed by the cache and not yet asked for, each with its callers. */
  private tokenWaiters = new Map<string, TokenWaiter[]>();
  /** A lookup of missed tokens is scheduled or in flight: new misses wait for the next one. */
  private tokenFlushing = false;
  private readonly tokenQueries = { lookups: 0, queries: 0 };
  /** Known entries whose time to live has passed, to re-read together. */
  private readonly refreshTokens = new Set<string>();
  private readonly refreshIdentifiers = new Set<string>();
  private refreshTimer: NodeJS.Timeout | undefined;
  /** Bumped by `invalidate`: a read that started before it must not refill the cache with what it read. */
  private generation = 0;

  constructor(
    private readonly db: Database,
    private readonly ttlMs: number,
    maxEntries = 100_000,
  ) {
    this.known = new BoundedCache(maxEntries, ttlMs);
    this.unknown = new BoundedCache(maxEntries, ttlMs);
    this.knownTokens = new BoundedCache(maxEntries, ttlMs);
    this.unknownTokens = new BoundedCache(maxEntries, ttlMs);
    // Registered vehicles only; bounded anyway, never expired (a fleet update needs the last known facts).
    this.byVehicle = new BoundedCache(maxEntries, Number.MAX_SAFE_INTEGER);
  }

  /** Entries held now, per cache: what the bounds are about (metrics, tests). */
  get cacheSizes(): { known: number; unknown: number; knownTokens: number; unknownTokens: number } {
    return {
      known: this.known.size,
      unknown: this.unknown.size,
      knownTokens: this.knownTokens.size,
      unknownTokens: this.unknownTokens.size,
    };
  }

  async lookup(identifiers: Iterable<string>): Promise<Map<string, DeviceEntry>> {
    const now = Date.now();
    const found = new Map<string, DeviceEntry>();
    const missing: string[] = [];
    for (const id of new Set(identifiers)) {
      const hit = this.known.get(id, now);
      if (hit && !hit.stale) found.set(id, hit.value);
      else if (hit && now < hit.expires + this.ttlMs) {
        found.set(id, hit.value);
        this.refreshLater(this.refreshIdentifiers, id);
      } else if (!hit && this.unknown.get(id, now)?.stale === false) continue;
      else missing.push(id);
    }
    if (missing.length > 0) {
      const startedIn = this.generation;
      let rows: DeviceEntry[];
      try {
        rows = (await this.db.query<DeviceEntry>(`${SELECT_DEVICE} AND d.identifier = ANY($1::text[])`, [missing]))
          .rows;
      } catch (err) {
        // Known devices keep sending while the database is away (their records go to the spool).
        if (!isDatabaseUnavailable(err)) throw err;
        for (const id of missing) {
          const stale = this.known.get(id, now);
          if (stale) found.set(id, stale.value);
          else if (!this.unknown.get(id, now)) {
            throw new AppError('DATABASE_UNAVAILABLE', 'The device registry is unreachable; retry', 503);
          }
        }
        return found;
      }
      for (const [id, entry] of this.storeIdentifiers(missing, rows, startedIn)) found.set(id, entry);
    }
    for (const entry of found.values()) this.byVehicle.set(entry.vehicleId, entry);
    return found;
  }

  /**
   * The device a token hash belongs to. Cache misses are not looked up one query each: the ones
   * asked for within one turn of the event loop, and those asked for while a lookup is in flight,
   * go to the database together in the next `token_hash = ANY($1)` query, one at a time (PGlite
   * has one connection, and each statement costs its JavaScript protocol layer as much as its
   * engine: with PGlite on its own thread the event loop is free between requests, so a fleet
   * starting up missed one token per turn, one statement each, queued behind one another).
   */
  async byTokenHash(tokenHash: string): Promise<DeviceEntry | undefined> {
    const now = Date.now();
    const hit = this.knownTokens.get(tokenHash, now);
    if (hit && !hit.stale) return hit.value;
    if (hit && now < hit.expires + this.ttlMs) {
      this.refreshLater(this.refreshTokens, tokenHash);
      return hit.value;
    }
    const miss = hit ? undefined : this.unknownTokens.get(tokenHash, now);
    if (miss && !miss.stale) return undefined;
    return new Promise((resolve, reject) => {
      const waiting = this.tokenWaiters.get(tokenHash);
      if (waiting) waiting.push({ resolve, reject });
      else this.tokenWaiters.set(tokenHash, [{ resolve, reject }]);
      this.scheduleTokenLookup();
    });
  }

  private scheduleTokenLookup(): void {
    if (this.tokenFlushing) return;
    this.tokenFlushing = true;
    setImmediate(() => {
      void this.flushTokenLookups().finally(() => {
        this.tokenFlushing = false;
        if (this.tokenWaiters.size > 0) this.scheduleTokenLookup();
      });
    });
  }

  /** Token lookups resolved so far and the queries they took: how well they are batched (tests, metrics). */
  get tokenQueryStats(): { lookups: number; queries: number } {
    return { ...this.tokenQueries };
  }

  private async flushTokenLookups(): Promise<void> {
    const batch = this.tokenWaiters;
    this.tokenWaiters = new Map();
    const hashes = [...batch.keys()];
    const startedIn = this.generation;
    let rows: DeviceEntry[];
    try {
      rows = await this.queryTokens(hashes);
    } catch (err) {
      const now = Date.now();
      for (const [hash, waiters] of batch) {
        // While the database is away, a token seen before keeps its answer (known or unknown).
        const hit = this.knownTokens.get(hash, now);
        const seen = hit !== undefined || this.unknownTokens.get(hash, now) !== undefined;
        for (const w of waiters) {
          if (!isDatabaseUnavailable(err)) w.reject(err);
          else if (!seen)
            w.reject(new AppError('DATABASE_UNAVAILABLE', 'The device registry is unreachable; retry', 503));
          else w.resolve(hit?.value);
        }
      }
      return;
    }
    const found = this.storeTokens(hashes, rows, startedIn);
    for (const [hash, waiters] of batch) {
      const entry = found.get(hash);
      for (const w of waiters) w.resolve(entry);
    }
  }

  /** One query for the devices of `hashes`, counted once it has answered (or failed). */
  private async queryTokens(hashes: readonly string[]): Promise<DeviceEntry[]> {
    try {
      return (await this.db.query<DeviceEntry>(`${SELECT_DEVICE} AND d.token_hash = ANY($1::text[])`, [hashes])).rows;
    } finally {
      this.tokenQueries.queries++;
      this.tokenQueries.lookups += hashes.length;
    }
  }

  private refreshLater(keys: Set<string>, key: string): void {
    keys.add(key);
    if (this.refreshTimer) return;
    this.refreshTimer = setTimeout(() => {
      this.refreshTimer = undefined;
      void this.refresh();
    }, REFRESH_GATHER_MS);
    this.refreshTimer.unref();
  }

  private async refresh(): Promise<void> {
    const hashes = [...this.refreshTokens];
    const identifiers = [...this.refreshIdentifiers];
    this.refreshTokens.clear();
    this.refreshIdentifiers.clear();
    const startedIn = this.generation;
    try {
      if (hashes.length > 0) this.storeTokens(hashes, await this.queryTokens(hashes), startedIn);
      if (identifiers.length > 0) {
        const { rows } = await this.db.query<DeviceEntry>(`${SELECT_DEVICE} AND d.identifier = ANY($1::text[])`, [
          identifiers,
        ]);
        this.storeIdentifiers(identifiers, rows, startedIn);
      }
    } catch {
      // Nobody waits on a re-read: the entries stay as they were, the next request asks again,
      // and past the grace period the lookup before answering deals with the failure.
    }
  }

  /** Caches what a lookup of `hashes` found (each hash absent from `rows` is unknown); returns the found. */
  private storeTokens(hashes: readonly string[], rows: readonly DeviceEntry[], startedIn: number) {
    const byHash = new Map(rows.map((r) => [r.tokenHash, r]));
    this.store(hashes, byHash, this.knownTokens, this.unknownTokens, startedIn);
    return byHash;
  }

  /** Caches what a lookup of `identifiers` found; returns the found. */
  private storeIdentifiers(identifiers: readonly string[], rows: readonly DeviceEntry[], startedIn: number) {
    const byId = new Map(rows.map((r) => [r.identifier, r]));
    this.store(identifiers, byId, this.known, this.unknown, startedIn);
    return byId;
  }

  private store(
    keys: readonly string[],
    found: ReadonlyMap<string, DeviceEntry>,
    known: BoundedCache<string, DeviceEntry>,
    unknown: BoundedCache<string, true>,
    startedIn: number,
  ): void {
    if (startedIn !== this.generation) return;
    const now = Date.now();
    for (const key of keys) {
      const entry = found.get(key);
      if (entry) {
        known.set(key, entry, now);
        unknown.delete(key);
      } else {
        unknown.set(key, true, now);
        known.delete(key);
      }
    }
  }

  vehicle(vehicleId: string): DeviceEntry | undefined {
    return this.byVehicle.get(vehicleId)?.value;
  }

  /**
   * Every entry may be wrong (the bus resumed after an outage: `device-changed` messages may have
   * been lost). Entries are expired rather than dropped, so each is looked up before it is used
   * again, yet a known device still keeps sending if the database is away too; in-flight reads
   * must not refill the cache with what they read before.
   */
  invalidateAll(): void {
    this.generation++;
    for (const cache of [this.known, this.unknown, this.knownTokens, this.unknownTokens]) cache.expireAll();
  }

  invalidate(identifiers: readonly string[]): void {
    this.generation++;
    const gone = new Set(identifiers);
    for (const id of gone) {
      this.known.delete(id);
      this.unknown.delete(id);
    }
    // A new device's token was unknown a moment ago: forget every unknown token.
    this.unknownTokens.clear();
    for (const [hash, entry] of this.knownTokens) {
      if (gone.has(entry.identifier)) this.knownTokens.delete(hash);
    }
  }
}
