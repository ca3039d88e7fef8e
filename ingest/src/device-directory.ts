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

const SELECT_DEVICE = `
  SELECT d.id AS "deviceId", d.identifier, d.vehicle_id AS "vehicleId", d.token_hash AS "tokenHash",
         d.protocol, d.profile,
         v.plate, v.operator_id AS "operatorId", v.pack, v.service_type AS "serviceType"
  FROM devices d JOIN vehicles v ON v.id = d.vehicle_id
  WHERE d.retired_at IS NULL`;

/**
 * Device lookups by identifier and by token hash, cached for `ttlMs` so the hot path does not
 * query the registry per record. Unknown identifiers are cached too (a misconfigured device
 * re-sends forever); the registry publishes `device-changed` on the bus when a device is
 * created, rotated, moved or retired, and every process drops those entries at once. While the
 * database is unreachable an expired entry is still used, so known devices keep sending (their
 * records go to the spool); a device never seen gets a 503 and retries.
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

  constructor(
    private readonly db: Database,
    ttlMs: number,
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
      else if (!hit && this.unknown.get(id, now)?.stale === false) continue;
      else missing.push(id);
    }
    if (missing.length > 0) {
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
      const byId = new Map(rows.map((r) => [r.identifier, r]));
      for (const id of missing) {
        const entry = byId.get(id);
        if (entry) {
          this.known.set(id, entry, now);
          this.unknown.delete(id);
          found.set(id, entry);
        } else {
          this.unknown.set(id, true, now);
          this.known.delete(id);
        }
      }
    }
    for (const entry of found.values()) this.byVehicle.set(entry.vehicleId, entry);
    return found;
  }

  async byTokenHash(tokenHash: string): Promise<DeviceEntry | undefined> {
    const now = Date.now();
    const hit = this.knownTokens.get(tokenHash, now);
    if (hit && !hit.stale) return hit.value;
    const miss = hit ? undefined : this.unknownTokens.get(tokenHash, now);
    if (miss && !miss.stale) return undefined;
    let rows: DeviceEntry[];
    try {
      rows = (await this.db.query<DeviceEntry>(`${SELECT_DEVICE} AND d.token_hash = $1`, [tokenHash])).rows;
    } catch (err) {
      if (!isDatabaseUnavailable(err)) throw err;
      if (!hit && !miss) throw new AppError('DATABASE_UNAVAILABLE', 'The device registry is unreachable; retry', 503);
      return hit?.value;
    }
    const entry = rows[0];
    if (entry) {
      this.knownTokens.set(tokenHash, entry, now);
      this.unknownTokens.delete(tokenHash);
    } else {
      this.unknownTokens.set(tokenHash, true, now);
      this.knownTokens.delete(tokenHash);
    }
    return entry;
  }

  vehicle(vehicleId: string): DeviceEntry | undefined {
    return this.byVehicle.get(vehicleId)?.value;
  }

  invalidate(identifiers: readonly string[]): void {
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
