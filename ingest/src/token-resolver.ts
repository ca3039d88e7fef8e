import {
  BoundedCache,
  type Principal,
  type Role,
  secretTokenMatcher,
  type TokenResolver,
  tokenDigest,
} from '@vigia/core';
import type { Database } from '@vigia/db';
import type { DeviceDirectory } from './device-directory.js';

/** The resolver, plus the hook the bus calls when users change (retired, token rotated, rescoped). */
export interface CachingTokenResolver extends TokenResolver {
  /**
   * Drops every cached user, so a retired user or a rotated token is refused at once. Users
   * change rarely, so dropping all is cheaper than tracking which hash belonged to whom; the
   * TTL still bounds staleness when the bus message is lost.
   */
  forgetUsers(): void;
}

/**
 * One resolver for every kind of token: the admin/gateway token from configuration, device
 * tokens and user API tokens (both stored as SHA-256 hashes). User lookups are cached briefly.
 */
export function createTokenResolver(opts: {
  adminToken: string;
  db: Database;
  devices: DeviceDirectory;
  ttlMs: number;
  /** Most user tokens cached (least recently used evicted): unknown tokens are cached too. */
  maxEntries?: number;
}): CachingTokenResolver {
  const users = new BoundedCache<string, Principal | undefined>(opts.maxEntries ?? 10_000, opts.ttlMs);
  // A lookup that started before `forgetUsers` may read the row as it was: it must not refill the cache.
  let generation = 0;
  const isAdmin = secretTokenMatcher(opts.adminToken);
  const resolve: TokenResolver = async (token, resolveOpts) => {
    const digest = tokenDigest(token);
    if (isAdmin(digest)) return { kind: 'admin' };
    const hash = digest.toString('hex');
    const device = await opts.devices.byTokenHash(hash);
    if (device) {
      return { kind: 'device', deviceId: device.deviceId, identifier: device.identifier, vehicleId: device.vehicleId };
    }
    const now = Date.now();
    const startedIn = generation;
    const hit = users.get(hash, now);
    if (hit && !hit.stale && !resolveOpts?.fresh) return hit.value;
    const { rows } = await opts.db.query<{ id: string; role: Role; operator_ids: string[] }>(
      'SELECT id, role, operator_ids FROM users WHERE token_hash = $1 AND retired_at IS NULL',
      [hash],
    );
    const row = rows[0];
    const value: Principal | undefined = row
      ? { kind: 'user', userId: row.id, role: row.role, operatorIds: row.operator_ids }
      : undefined;
    if (startedIn === generation) users.set(hash, value, now);
    return value;
  };
  return Object.assign(resolve, {
    forgetUsers() {
      generation++;
      users.clear();
    },
  });
}
