import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { type AccessEntry, type Caller, callers } from '@vigia/core';
import { io } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DASHBOARD_DIST } from '../src/dashboard/dashboard-routes.js';
import {
  anonymous,
  collectionOf,
  concretePath,
  type Fixtures,
  type MatrixRole,
  seedFixtures,
  validBodies,
} from './route-fixtures.js';
import { startTestSystem, type TestSystem } from './support.js';

/**
 * The authorization matrix: every route of the route table (`app.accessRoutes()`) × every kind
 * of caller. Two things are checked:
 * - the declared access matches the reviewed table below, so widening a route's callers is a
 *   visible diff in this file, and a new route fails here until someone writes down who may call it;
 * - the server enforces the declaration: a caller not on the list gets 401 (no token, an unknown
 *   token, a retired user's token, a device's token since replaced) or 403 (another role) in the
 *   API.md error shape, with a valid body, before anything is read or written; a caller on the
 *   list never gets MISSING_TOKEN, INVALID_TOKEN or FORBIDDEN from the access check (it may get
 *   400/404/409 for the empty body), and its reads return the record (200) unless the record is
 *   outside its scope (`scopeHides`).
 * The Socket.IO namespace `/live` is admitted by the same roles.
 */

const all = 'public' as const;
const readers: Caller[] = ['admin', 'regulator', 'enforcement', 'dispatcher', 'operator'];
const registrars: Caller[] = ['admin', 'regulator'];
const adminOnly: Caller[] = ['admin'];

/** The reviewed access of every route. Change a row only with the review that justifies it. */
const expected: Record<string, 'public' | Caller[]> = {
  'GET /health': all,
  'GET /ready': all,
  // Counters describe the fleet and the attacks on it: the admin token, or METRICS_TOKEN (below).
  'GET /metrics': adminOnly,
  'GET /': all,
  'GET /v1/dashboard-config': all,
  // Who the token stands for (name, role, scope): every token kind may ask about itself.
  'GET /v1/me': ['admin', 'regulator', 'enforcement', 'dispatcher', 'operator', 'device'],
  'GET <dashboard file>': all,
  'GET /driver': all,
  'POST /v1/telemetry': ['admin', 'device'],
  'POST /v1/dispatches': ['admin', 'dispatcher'],
  // Bookings: taken, cancelled and assigned by the admin and the operator's dispatchers; read also by
  // regulators and enforcement, who supervise radio dispatch (api/src/dispatch/README.md).
  'POST /v1/bookings': ['admin', 'dispatcher'],
  'GET /v1/bookings': ['admin', 'regulator', 'enforcement', 'dispatcher'],
  'GET /v1/bookings/:id': ['admin', 'regulator', 'enforcement', 'dispatcher'],
  'GET /v1/bookings/:id/candidates': ['admin', 'regulator', 'enforcement', 'dispatcher'],
  'POST /v1/bookings/:id/cancel': ['admin', 'dispatcher'],
  'POST /v1/bookings/:id/assign': ['admin', 'dispatcher'],
  // Offers: the taxi answers with a token of its own device; the admin and the operator's dispatchers for it.
  'GET /v1/offers': ['admin', 'dispatcher', 'device'],
  'POST /v1/offers/:id/accept': ['admin', 'dispatcher', 'device'],
  'POST /v1/offers/:id/decline': ['admin', 'dispatcher', 'device'],
  // What devices put on the wire, refused but acknowledged: the admin only.
  'GET /v1/quarantine': adminOnly,
  // Violations: every user role reads its scope; regulators and enforcement review.
  'GET /v1/violations': readers,
  'GET /v1/violations/export.csv': readers,
  'GET /v1/violations/:id': readers,
  // Notices: issuing one is an enforcement act (regulators, enforcement, the admin); anyone holding
  // one verifies it by its code, and the answer repeats only what the notice prints.
  'GET /v1/violations/:id/notice.pdf': ['admin', 'regulator', 'enforcement'],
  'GET /v1/notices/:code': all,
  'POST /v1/violations/:id/review': ['admin', 'regulator', 'enforcement'],
  // Alert subscriptions: the roles that read every operator's violations own them (issue 9).
  'POST /v1/alert-subscriptions': ['admin', 'regulator', 'enforcement'],
  'GET /v1/alert-subscriptions': ['admin', 'regulator', 'enforcement'],
  'GET /v1/alert-subscriptions/:id': ['admin', 'regulator', 'enforcement'],
  'GET /v1/alert-subscriptions/:id/deliveries': ['admin', 'regulator', 'enforcement'],
  'PATCH /v1/alert-subscriptions/:id': ['admin', 'regulator', 'enforcement'],
  'DELETE /v1/alert-subscriptions/:id': ['admin', 'regulator', 'enforcement'],
  'POST /v1/alert-deliveries/:id/redeliver': ['admin', 'regulator', 'enforcement'],
  // Users and their tokens: the admin token only.
  ...collection('users', adminOnly, adminOnly, { token: true }),
  // Devices are equipment data: regulators only, reading included.
  ...collection('devices', registrars, registrars, { token: true }),
  // The registry and its reference data: every role reads (within scope), regulators write.
  ...collection('operators', readers, registrars),
  ...collection('vehicles', readers, registrars),
  ...collection('drivers', readers, registrars),
  ...collection('stops', readers, registrars),
  ...collection('stands', readers, registrars),
  ...collection('zones', readers, registrars),
  ...collection('contracts', readers, registrars),
  ...collection('holidays', readers, registrars),
  ...collection('unit-values', readers, registrars),
  'POST /v1/stops/import': registrars,
  'POST /v1/stands/import': registrars,
  'POST /v1/zones/import': registrars,
  'POST /v1/vehicles/import': registrars,
  // A stand's legal queue: what anyone at the stand sees, for every user role, unscoped (api/src/dispatch/STANDS.md).
  'GET /v1/stands/:id/queue': readers,
  // Where a point is (nearest street, registered place): what the map shows everyone, for every user role's popups (api/src/places/README.md).
  'GET /v1/places/reverse': readers,
  // The cooperative's dispatch report: the admin, dispatchers (their operators), regulators (they supervise dispatch).
  'GET /v1/bookings/report': ['admin', 'dispatcher', 'regulator'],
  // One search box: every user role, each finding only what its registry lists show it (api/src/search/README.md).
  'GET /v1/search': readers,
  // History: whoever reads a vehicle reads its track, and the area replay, within the live feed's scope.
  'GET /v1/vehicles/:id/track': readers,
  'GET /v1/replay': readers,
  // Analytics (api/src/analytics/README.md): fleet-wide figures show every operator's fleet, the
  // regulator's planning tools; an operator also reads its own operator's and vehicles' records.
  'GET /v1/analytics/occupancy': registrars,
  'GET /v1/analytics/fleet-sizing': registrars,
  'GET /v1/analytics/authorization-shares': registrars,
  'GET /v1/analytics/violation-heat': registrars,
  'GET /v1/analytics/operators/:id': ['admin', 'regulator', 'operator'],
  'GET /v1/analytics/vehicles/:id': ['admin', 'regulator', 'operator'],
};

/**
 * Callers on a route's list whose request the handler may still refuse with FORBIDDEN once it
 * knows the data (scope narrowing). With the requests this test sends (an empty JSON object, the
 * fixtures' ids, which belong to the scoped operator) none does; a row here must say why.
 */
const scopeForbids: Record<string, Role[]> = {
  // The fixtures' operator (`op-target`) is not the operator user's own: its record is refused (403, not 404, so ids cannot be probed).
  'GET /v1/analytics/operators/:id': ['operator'],
};

/**
 * Reads that a caller on the list gets a 404 for, because the record is outside its scope: the
 * operator behind `:id` of `/v1/operators/:id`, and the charter company whose contract is behind
 * `/v1/contracts/:id`, are not the operators the scoped users belong to. Every other read,
 * reference data included, returns the record to every caller on the list.
 */
const scopeHides: Record<string, Role[]> = {
  'GET /v1/operators/:id': ['dispatcher', 'operator'],
  'GET /v1/contracts/:id': ['dispatcher', 'operator'],
  // Another operator's analytics record: refused with 403 (scopeForbids), not hidden behind a 404.
  'GET /v1/analytics/operators/:id': ['operator'],
  // A subscription is its owner's (the enforcement officer's) and the admin's: another user gets 404.
  'GET /v1/alert-subscriptions/:id': ['regulator'],
  'GET /v1/alert-subscriptions/:id/deliveries': ['regulator'],
};

/**
 * The query string a read needs to be a valid request (its required parameters), so that a caller
 * on the list gets the data: the area replay names an area and a window.
 */
const requiredQuery: Record<string, string> = {
  'GET /v1/replay': '?bbox=-47.95,-15.85,-47.85,-15.75&from=2026-01-01T12:00:00Z&to=2026-01-01T12:15:00Z',
  'GET /v1/search': '?q=op',
  'GET /v1/places/reverse': '?lat=-15.79&lon=-47.88',
};

/**
 * 5xx answers that report the environment, not a fault: the dashboard page when the dashboard
 * was not built (tests run without `npm run build`). Still in the error shape.
 */
const environmental5xx: Record<string, string> = {
  'GET /': 'DASHBOARD_NOT_BUILT',
  'GET /driver': 'DASHBOARD_NOT_BUILT',
};

/** Who `/live` admits: every user role (the hub narrows the feed by scope); not devices. */
const liveCallers: MatrixRole[] = ['admin', 'regulator', 'enforcement', 'dispatcher', 'operator'];

function collection(
  name: string,
  read: Caller[],
  write: Caller[],
  opts: { token?: boolean } = {},
): Record<string, Caller[]> {
  const base = `/v1/${name}`;
  return {
    [`GET ${base}`]: read,
    [`GET ${base}/:id`]: read,
    [`POST ${base}`]: write,
    [`PATCH ${base}/:id`]: write,
    [`DELETE ${base}/:id`]: write,
    ...(opts.token ? { [`POST ${base}/:id/token`]: write } : {}),
  };
}

/**
 * A Prometheus scraper's METRICS_TOKEN: not a caller of the access model, an extra token that
 * opens only the routes listed here, and is an unknown token everywhere else.
 */
const METRICS_TOKEN = 'matrix-metrics-scraper-0123456789';
const metricsTokenRoutes = ['GET /metrics'];

type Role = MatrixRole | 'metrics';
const roles: Role[] = [...callers, ...anonymous, 'metrics'];

/**
 * A file of the built dashboard (`GET /index.html`, `GET /assets/index-<hash>.js`): the static
 * file server adds one route per file, named by the build, so they are reviewed as one row —
 * public, like `GET /` — when the file is in the dashboard's dist folder.
 */
function dashboardFile(route: AccessEntry): boolean {
  if (route.method !== 'GET' || route.url.startsWith('/v1/') || route.url === '/') return false;
  const file = join(DASHBOARD_DIST, route.url);
  return file.startsWith(DASHBOARD_DIST) && existsSync(file) && statSync(file).isFile();
}
const keyOf = (r: AccessEntry) => (dashboardFile(r) ? 'GET <dashboard file>' : `${r.method} ${r.url}`);
const errorShape = { error: { code: expect.stringMatching(/^[A-Z][A-Z0-9_]*$/), message: expect.any(String) } };

/** The body a denied caller sends: a valid one, so nothing but the access check can refuse it. */
function validBodyOf(route: AccessEntry, fx: Fixtures): unknown {
  if (route.method !== 'POST' && route.method !== 'PATCH') return undefined;
  const collection = collectionOf(route.url);
  return (collection && fx.bodies[collection]) ?? {};
}

const registryCollections = new Set(Object.keys(validBodies).filter((c) => c !== 'violations'));

/** How many records (retired included) each collection with a list route holds. */
async function recordCounts(sys: TestSystem): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const route of sys.app.accessRoutes()) {
    const collection = collectionOf(route.url);
    // Registry collections: the ones with a create body (violations are the rule engine's).
    if (
      route.method !== 'GET' ||
      !collection ||
      route.url !== `/v1/${collection}` ||
      !registryCollections.has(collection)
    ) {
      continue;
    }
    // Bookings are never retired: only the registry's lists take includeRetired (an unknown filter elsewhere).
    const retired = collection === 'bookings' ? '' : '&includeRetired=true';
    const res = await sys.app.inject({
      method: 'GET',
      url: `${route.url}?limit=1000${retired}`,
      headers: { authorization: `Bearer ${sys.adminToken}` },
    });
    expect(res.statusCode, route.url).toBe(200);
    counts[collection] = (res.json() as { items: unknown[] }).items.length;
  }
  for (const table of ['telemetry', 'dispatches']) {
    const { rows } = await sys.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`);
    counts[table] = rows[0]?.n ?? -1;
  }
  return counts;
}

describe('authorization matrix', () => {
  let sys: TestSystem;
  let fx: Fixtures;
  let tokens: Record<Role, string | null>;
  let routes: AccessEntry[];
  let seeded: Record<string, number>;

  beforeAll(async () => {
    // The matrix makes hundreds of refused calls from one address, which would end in 429 early on.
    sys = await startTestSystem('postgres', { AUTH_FAILURE_LIMIT: '0', METRICS_TOKEN });
    fx = await seedFixtures(sys);
    tokens = { ...fx.tokens, metrics: METRICS_TOKEN };
    routes = sys.app.accessRoutes();
    seeded = await recordCounts(sys);
  });
  afterAll(async () => {
    await sys?.stop();
  });

  it('every route has a reviewed row, and every row a route; the declared access is the reviewed one', () => {
    const declared = new Set(routes.map(keyOf));
    const unreviewed = routes.filter((r) => !(keyOf(r) in expected)).map(keyOf);
    // The dashboard rows exist only in a tree where the dashboard was built.
    const stale = Object.keys(expected).filter((k) => !declared.has(k) && k !== 'GET <dashboard file>');
    expect(unreviewed, 'routes without a row in the reviewed table').toEqual([]);
    expect(stale, 'rows for routes that no longer exist').toEqual([]);
    for (const route of routes) {
      const want = expected[keyOf(route)];
      const got = route.access === 'public' ? 'public' : [...route.access].sort();
      expect(got, keyOf(route)).toEqual(want === 'public' ? 'public' : [...(want ?? [])].sort());
    }
  });

  it('enforces every route × role: 401/403 in the error shape for callers not on the list, never for those on it', async () => {
    const cells: string[] = [];
    const failures: string[] = [];
    for (const route of routes) {
      const path = concretePath(route.url, fx) + (requiredQuery[keyOf(route)] ?? '');
      for (const role of roles) {
        const token = tokens[role];
        const allowed =
          route.access === 'public' ||
          (role === 'metrics' ? metricsTokenRoutes.includes(keyOf(route)) : route.access.includes(role as Caller));
        const body = allowed
          ? route.method === 'POST' || route.method === 'PATCH'
            ? {}
            : undefined
          : validBodyOf(route, fx);
        const res = await sys.app.inject({
          method: route.method as 'GET',
          url: path,
          headers: token ? { authorization: `Bearer ${token}` } : {},
          ...(body === undefined ? {} : { payload: body as object }),
        });
        cells.push(`${keyOf(route)} ${role}`);
        const json = res.headers['content-type']?.toString().startsWith('application/json') ? res.json() : undefined;
        const code: unknown = json?.error?.code;
        const where = `${keyOf(route)} as ${role} → ${res.statusCode} ${String(code ?? '')}`;
        if (res.statusCode >= 500 && environmental5xx[keyOf(route)] !== code)
          failures.push(`${where} (5xx: ${res.body.slice(0, 200)})`);
        if (res.statusCode >= 400) {
          try {
            expect(json).toMatchObject(errorShape);
          } catch {
            failures.push(`${where} (not the API.md error shape: ${res.body.slice(0, 200)})`);
          }
        }
        if (allowed) {
          const refused = code === 'MISSING_TOKEN' || code === 'INVALID_TOKEN' || code === 'FORBIDDEN';
          if (refused && !scopeForbids[keyOf(route)]?.includes(role)) {
            failures.push(`${where} (caller on the list refused)`);
          }
          // A read by a caller on the list returns the data: the ids are the scoped operator's.
          const hidden = scopeHides[keyOf(route)]?.includes(role) || environmental5xx[keyOf(route)] === code;
          if (route.method === 'GET' && res.statusCode !== 200 && !hidden) failures.push(`${where} (read refused)`);
        } else {
          const want =
            role === 'none'
              ? [401, 'MISSING_TOKEN']
              : role === 'invalid' || role === 'retired' || role === 'rotated' || role === 'metrics'
                ? [401, 'INVALID_TOKEN']
                : [403, 'FORBIDDEN'];
          if (res.statusCode !== want[0] || code !== want[1]) failures.push(`${where} (expected ${want.join(' ')})`);
        }
      }
    }
    console.log(`authorization matrix: ${routes.length} routes × ${roles.length} roles = ${cells.length} cells`);
    expect(failures).toEqual([]);
    expect(cells.length).toBe(routes.length * roles.length);
  });

  it('no write landed: every collection holds the records it held before the matrix', async () => {
    // Denied callers sent valid create bodies, allowed ones an empty object: nothing was created.
    expect(await recordCounts(sys)).toEqual(seeded);
  });

  /** Each caller's handshake with a Socket.IO namespace: `connected` or the refusal's code. */
  async function socketOutcomes(namespace: string): Promise<Record<string, string>> {
    const outcomes: Record<string, string> = {};
    for (const role of roles) {
      const token = tokens[role];
      const socket = io(`${sys.url}${namespace}`, {
        auth: token ? { token } : {},
        transports: ['websocket'],
        reconnection: false,
        forceNew: true,
      });
      outcomes[role] = await new Promise<string>((resolve) => {
        socket.on('connect', () => resolve('connected'));
        socket.on('connect_error', (err: Error & { data?: { code?: string } }) =>
          resolve(err.data?.code ?? `error: ${err.message}`),
        );
      });
      socket.close();
    }
    return outcomes;
  }

  it('admits the Socket.IO /live namespace for the same roles, refusing the others with a code', async () => {
    const outcomes = await socketOutcomes('/live');
    const want = Object.fromEntries(
      roles.map((role) => [
        role,
        liveCallers.includes(role as MatrixRole)
          ? 'connected'
          : role === 'device'
            ? 'FORBIDDEN'
            : role === 'none' && outcomes.none === 'MISSING_TOKEN'
              ? 'MISSING_TOKEN'
              : 'INVALID_TOKEN',
      ]),
    );
    expect(outcomes).toEqual(want);
  });

  it('admits the Socket.IO /driver namespace for device tokens only (the admin must name a vehicle)', async () => {
    const outcomes = await socketOutcomes('/driver');
    const users: MatrixRole[] = ['regulator', 'enforcement', 'dispatcher', 'operator'];
    const want = Object.fromEntries(
      roles.map((role) => [
        role,
        role === 'device'
          ? 'connected'
          : role === 'admin'
            ? 'VEHICLE_ID_REQUIRED'
            : users.includes(role as MatrixRole)
              ? 'FORBIDDEN'
              : 'INVALID_TOKEN',
      ]),
    );
    expect(outcomes).toEqual(want);
  });
});
