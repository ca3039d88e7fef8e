import { type Caller, callerOf, principalOf } from '@vigia/core';
import type { Database } from '@vigia/db';
import type { FastifyInstance } from 'fastify';
import { SessionStore } from './session-store.js';

/** Every token kind may ask who it is: the dashboard shows the name and role and hides what the role cannot use. */
const everyone = {
  config: { access: ['admin', 'regulator', 'enforcement', 'dispatcher', 'operator', 'device'] as Caller[] },
};

/**
 * `GET /v1/me`: who the caller's token stands for, as the dashboard's top bar shows it.
 * `{ kind: 'admin'|'user'|'device', id, name, role, operatorIds }` — `role` is the caller kind the
 * access table uses (`admin`, a user's role, or `device`), `name` the user's registry name (null for
 * the admin token, which has no user; a device's identifier for a device), `operatorIds` the
 * operators a user's scope covers (empty: the admin sees all; a device: its vehicle's operator is not
 * needed by any page).
 */
export async function registerSessionRoutes(app: FastifyInstance, deps: { db: Database }): Promise<void> {
  const store = new SessionStore(deps.db);
  app.get('/v1/me', everyone, async (req) => {
    const principal = principalOf(req);
    const role = callerOf(principal);
    switch (principal.kind) {
      case 'admin':
        return { kind: 'admin', id: 'admin', name: null, role, operatorIds: [] };
      case 'device':
        return {
          kind: 'device',
          id: principal.deviceId,
          name: principal.identifier,
          role,
          operatorIds: [],
          vehicleId: principal.vehicleId,
        };
      case 'user':
        return {
          kind: 'user',
          id: principal.userId,
          name: await store.userName(principal.userId),
          role,
          operatorIds: principal.operatorIds,
        };
    }
  });
}
