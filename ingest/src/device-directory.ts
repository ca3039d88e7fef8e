import { AppError, isDatabaseUnavailable, type Pack, type ServiceType } from '@vigia/core';
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

interface Cached<T> {
  value: T;
  expires: number;
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
 */
export class DeviceDirectory {
  private readonly byIdentifier = new Map<string, Cached<DeviceEntry | null>>();
  private readonly byToken = new Map<string, Cached<DeviceEntry | null>>();
  /** Each vehicle's entry as last looked up: the vehicle facts a fleet update carries. */
  private readonly byVehicle = new Map<string, DeviceEntry>();

  constructor(
    private readonly db: Database,
    private readonly ttlMs: number,
  ) {}

  async lookup(identifiers: Iterable<string>): Promise<Map<string, DeviceEntry>> {
    const now = Date.now();
    const found = new Map<string, DeviceEntry>();
    const missing: string[] = [];
    for (const id of new Set(identifiers)) {
      const hit = this.byIdentifier.get(id);
      if (hit && hit.expires > now) {
        if (hit.value) found.set(id, hit.value);
      } else {
        missing.push(id);
      }
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
          const stale = this.byIdentifier.get(id);
          if (!stale) throw new AppError('DATABASE_UNAVAILABLE', 'The device registry is unreachable; retry', 503);
          if (stale.value) found.set(id, stale.value);
        }
        return found;
      }
      const expires = now + this.ttlMs;
      const byId = new Map(rows.map((r) => [r.identifier, r]));
      for (const id of missing) {
        const entry = byId.get(id) ?? null;
        this.byIdentifier.set(id, { value: entry, expires });
        if (entry) found.set(id, entry);
      }
    }
    for (const entry of found.values()) this.byVehicle.set(entry.vehicleId, entry);
    return found;
  }

  async byTokenHash(tokenHash: string): Promise<DeviceEntry | undefined> {
    const now = Date.now();
    const hit = this.byToken.get(tokenHash);
    if (hit && hit.expires > now) return hit.value ?? undefined;
    let rows: DeviceEntry[];
    try {
      rows = (await this.db.query<DeviceEntry>(`${SELECT_DEVICE} AND d.token_hash = $1`, [tokenHash])).rows;
    } catch (err) {
      if (!isDatabaseUnavailable(err)) throw err;
      if (!hit) throw new AppError('DATABASE_UNAVAILABLE', 'The device registry is unreachable; retry', 503);
      return hit.value ?? undefined;
    }
    const entry = rows[0] ?? null;
    this.byToken.set(tokenHash, { value: entry, expires: now + this.ttlMs });
    return entry ?? undefined;
  }

  vehicle(vehicleId: string): DeviceEntry | undefined {
    return this.byVehicle.get(vehicleId);
  }

  invalidate(identifiers: readonly string[]): void {
    const gone = new Set(identifiers);
    for (const id of gone) this.byIdentifier.delete(id);
    for (const [hash, cached] of this.byToken) {
      if (!cached.value || gone.has(cached.value.identifier)) this.byToken.delete(hash);
    }
  }
}
