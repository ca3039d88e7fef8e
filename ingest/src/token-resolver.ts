import { hashToken, type Principal, type Role, type TokenResolver, tokensEqual } from '@vigia/core';
import type { Database } from '@vigia/db';
import type { DeviceDirectory } from './device-directory.js';

interface Cached {
  value: Principal | undefined;
  expires: number;
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
}): TokenResolver {
  const users = new Map<string, Cached>();
  return async (token) => {
    if (tokensEqual(token, opts.adminToken)) return { kind: 'admin' };
    const hash = hashToken(token);
    const device = await opts.devices.byTokenHash(hash);
    if (device) return { kind: 'device', deviceId: device.deviceId, identifier: device.identifier };
    const now = Date.now();
    const hit = users.get(hash);
    if (hit && hit.expires > now) return hit.value;
    const { rows } = await opts.db.query<{ id: string; role: Role; operator_ids: string[] }>(
      'SELECT id, role, operator_ids FROM users WHERE token_hash = $1 AND retired_at IS NULL',
      [hash],
    );
    const row = rows[0];
    const value: Principal | undefined = row
      ? { kind: 'user', userId: row.id, role: row.role, operatorIds: row.operator_ids }
      : undefined;
    if (users.size > 10_000) users.clear();
    users.set(hash, { value, expires: now + opts.ttlMs });
    return value;
  };
}
