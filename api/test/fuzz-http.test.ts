import type { AccessEntry } from '@vigia/core';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectionOf, concretePath, type Fixtures, type MatrixRole, seedFixtures } from './route-fixtures.js';
import { startTestSystem, type TestSystem } from './support.js';

/**
 * Every HTTP route of the route table, fuzzed through `app.inject` (no sockets) against one
 * populated system: arbitrary JSON bodies and near-valid ones (a valid body with members
 * replaced, removed or added, control characters, huge numbers), arbitrary query strings and
 * path parameters, CSV and zip bodies for the imports. Whatever arrives, the answer is below
 * 500 and a 4xx carries the API.md error shape. Seeded, and a fixed number of inputs per route
 * (not as many as fit in a time, which on a loaded machine left routes untried); every 5xx is
 * collected (route, status, body, the request) rather than shrunk, so one run lists them all.
 */

const SEED = 20_261_130;
/** Inputs per route on average: the seed fixes which, so every route gets at least ten. */
const RUNS_PER_ROUTE = 25;
/** A safety net only: the runs above take 15–60 s, by the machine's load. */
const TIME_LIMIT_MS = 200_000;

/** 5xx answers that report the environment, not a fault (tests run without the built dashboard). */
const environmental5xx: Record<string, string> = { 'GET /': 'DASHBOARD_NOT_BUILT' };

interface FuzzRequest {
  route: AccessEntry;
  role: MatrixRole;
  path: string;
  query: string;
  contentType?: string;
  payload?: string | Buffer;
}

const controlChars = fc.constantFrom('\u0000', '\u0001', '\u001f', '\u007f', '\u2028', '\ud800', '\r\n', '\t');
/** Values that break code written for the happy path. */
const nasty = fc.oneof(
  fc.constantFrom(
    9e15,
    -9e15,
    1e308,
    -0,
    0,
    -1,
    2 ** 53,
    '',
    ' ',
    'null',
    '0',
    '1970-01-01',
    '1970-01-01T00:00:00Z',
    '9999-12-31',
    '2026-02-30',
    '+275760-09-13T00:00:00.000Z',
    'x'.repeat(10_000),
    '__proto__',
    "'; DROP TABLE vehicles; --",
    '%00',
  ),
  fc.string({ maxLength: 40 }).chain((s) => controlChars.map((c) => `${s}${c}${s}`)),
  fc.double(),
  fc.integer(),
);
const anyJson = fc.oneof({ weight: 3, arbitrary: fc.jsonValue({ maxDepth: 3 }) }, { weight: 2, arbitrary: nasty });

/** A valid body with one to three members replaced by anything, removed, or an unknown one added. */
function nearValid(valid: Record<string, unknown>): fc.Arbitrary<unknown> {
  const keys = Object.keys(valid);
  const edit = fc.oneof(
    fc.tuple(fc.constantFrom(...keys), fc.oneof(anyJson, fc.constant(undefined))),
    fc.tuple(fc.string({ maxLength: 12 }), anyJson),
  );
  return fc
    .tuple(fc.array(edit, { minLength: 1, maxLength: 3 }), fc.constantFrom('object', 'array', 'empty-array'))
    .map(([edits, shape]) => {
      const body: Record<string, unknown> = { ...valid };
      for (const [key, value] of edits) {
        if (value === undefined) delete body[key];
        else body[key] = value;
      }
      return shape === 'object' ? body : shape === 'array' ? [body, valid] : [];
    });
}

/** Query strings: known filters and paging with odd values, unknown keys, broken percent-encoding. */
const queryKeys = fc.oneof(
  fc.constantFrom(
    'limit',
    'cursor',
    'includeRetired',
    'pack',
    'kind',
    'status',
    'operatorId',
    'vehicleId',
    'role',
    'source',
    'unit',
    'ruleId',
    'from',
    'to',
    'bbox',
    'confidence',
    'identifier',
    'protocol',
  ),
  fc.string({ maxLength: 10 }),
);
const queryValues = fc.oneof(
  fc.constantFrom('-1', '0', '1001', '1e9', 'NaN', 'true', 'false', '-180,-90,180,90', '10,10,0,0', 'a,b,c,d'),
  fc.constantFrom('%', '%zz', '%00', '%E0%A4%A', '2026-13-01T00:00:00Z', 'df-taxi', 'x'.repeat(300)),
  fc.string({ maxLength: 30 }).map(encodeURIComponent),
  fc.string({ maxLength: 30 }),
);
const queryString = fc.oneof(
  fc
    .array(fc.tuple(queryKeys, queryValues), { maxLength: 4 })
    .map((pairs) => pairs.map(([k, v]) => `${k}=${v}`).join('&')),
  fc.string({ maxLength: 60 }),
);

/** A path parameter: the existing id most of the time, otherwise anything (encoded). */
function pathOf(route: AccessEntry, fx: Fixtures): fc.Arbitrary<string> {
  if (!route.url.includes(':')) return fc.constant(route.url);
  return fc.oneof(
    { weight: 3, arbitrary: fc.constant(concretePath(route.url, fx)) },
    {
      weight: 1,
      arbitrary: fc
        .oneof(fc.string({ maxLength: 80 }), fc.constantFrom('%', '..', 'x'.repeat(2000), '\u0000'))
        .map((id) => route.url.replace(/:[A-Za-z]+/g, encodeURIComponent(id))),
    },
  );
}

function bodyOf(
  route: AccessEntry,
  validBodies: Record<string, Record<string, unknown>>,
): fc.Arbitrary<{ contentType?: string; payload?: string | Buffer }> {
  if (route.method === 'GET' || route.method === 'DELETE') return fc.constant({});
  const json = (value: fc.Arbitrary<unknown>) =>
    value.map((v) => ({ contentType: 'application/json', payload: JSON.stringify(v) ?? 'null' }));
  const collection = collectionOf(route.url) ?? '';
  const valid = validBodies[collection];
  const variants: fc.Arbitrary<{ contentType?: string; payload?: string | Buffer }>[] = [
    json(anyJson),
    // Not JSON at all, under the JSON content type.
    fc.string({ maxLength: 200 }).map((s) => ({ contentType: 'application/json', payload: s })),
  ];
  if (valid && !route.url.endsWith('/import')) variants.push(json(nearValid(valid)), json(nearValid(valid)));
  if (route.url === '/v1/telemetry') {
    // NDJSON lines, some of them near-valid records.
    const line = fc.oneof(
      nearValid(validBodies.telemetry ?? {}).map((v) => JSON.stringify(v)),
      fc.string({ maxLength: 80 }),
    );
    variants.push(
      fc
        .array(line, { minLength: 1, maxLength: 5 })
        .map((lines) => ({ contentType: 'application/x-ndjson', payload: lines.join('\n') })),
    );
  }
  if (route.url === '/v1/stops/import' || route.url === '/v1/vehicles/import') {
    const header =
      route.url === '/v1/stops/import'
        ? 'stop_id,stop_name,stop_lat,stop_lon'
        : 'plate,pack,serviceType,capacity,operatorId';
    const cell = fc.oneof(
      nasty.map(String),
      fc.string({ maxLength: 12 }),
      fc.constantFrom('"', '""', ',', '\n', '=1+1'),
    );
    const row = fc.array(cell, { maxLength: 6 }).map((cells) => cells.join(','));
    variants.push(
      fc
        .array(row, { maxLength: 6 })
        .map((rows) => ({ contentType: 'text/csv', payload: [header, ...rows].join('\n') })),
      fc.uint8Array({ maxLength: 300 }).map((b) => ({ contentType: 'application/zip', payload: Buffer.from(b) })),
    );
  }
  if (route.url === '/v1/stands/import' || route.url === '/v1/zones/import') {
    const feature = fc.record({
      type: fc.oneof(fc.constant('Feature'), anyJson),
      geometry: fc.oneof(fc.constant((validBodies.zones as { geometry: unknown }).geometry), anyJson),
      properties: fc.oneof(fc.constant(validBodies[collection]), anyJson),
    });
    variants.push(
      json(fc.record({ type: fc.constant('FeatureCollection'), features: fc.array(feature, { maxLength: 3 }) })),
    );
  }
  return fc.oneof(...variants);
}

describe('HTTP fuzz: every route, bodies, queries and parameters', () => {
  let sys: TestSystem;
  let fx: Fixtures;

  beforeAll(async () => {
    sys = await startTestSystem('postgres', {
      // Thousands of refused tokens from one address would otherwise end in 429 early on.
      AUTH_FAILURE_LIMIT: '0',
      // A busy event loop would answer 503 OVERLOADED, which is right but not what is measured here.
      OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0',
    });
    fx = await seedFixtures(sys);
  });
  afterAll(async () => {
    await sys?.stop();
  });

  /**
   * What the fuzz found, kept as plain cases: a NUL (`%00`) in a path parameter or a filter
   * reached PostgreSQL, which refuses it in `text`, and the request failed with 500.
   */
  it.each([
    ['GET', '/v1/violations/%00'],
    ['POST', '/v1/violations/%00/review'],
    ['GET', '/v1/violations?vehicleId=%00'],
    ['GET', '/v1/violations/export.csv?ruleId=a%00b'],
    ['GET', '/v1/stops/%00'],
    ['DELETE', '/v1/vehicles/%00'],
    ['POST', '/v1/users/%00/token'],
    ['GET', '/v1/vehicles?operatorId=%00'],
  ])('%s %s: a NUL in the URL is a 4xx, not a 500', async (method, url) => {
    const res = await sys.app.inject({
      method: method as 'GET',
      url,
      headers: { authorization: `Bearer ${sys.adminToken}` },
      // A body only where the route reads one (an empty JSON body would be refused before the handler).
      ...(url.endsWith('/review') ? { payload: { decision: 'confirm', reason: 'visto pelo fiscal' } } : {}),
    });
    expect(res.statusCode).toBeGreaterThanOrEqual(400);
    expect(res.statusCode).toBeLessThan(500);
    expect(hasErrorShape(res.json())).toBe(true);
  });

  it('answers < 500, and every 4xx in the API.md error shape', async () => {
    const routes = sys.app.accessRoutes();
    // Mostly the admin token, to get past the access check; sometimes another caller, for the scoped paths.
    const role = fc.oneof(
      { weight: 6, arbitrary: fc.constant<MatrixRole>('admin') },
      { weight: 2, arbitrary: fc.constantFrom<MatrixRole>('regulator', 'dispatcher', 'operator', 'device') },
      { weight: 1, arbitrary: fc.constantFrom<MatrixRole>('none', 'invalid', 'enforcement') },
    );
    const request: fc.Arbitrary<FuzzRequest> = fc.oneof(
      ...routes.map((route) =>
        fc
          .record({
            role,
            path: pathOf(route, fx),
            query: fc.oneof(fc.constant(''), queryString),
            body: bodyOf(route, fx.bodies),
          })
          .map(({ body, ...r }): FuzzRequest => ({ route, ...r, ...body })),
      ),
    );

    let tried = 0;
    const byClass: Record<string, number> = {};
    const perRoute = new Map<string, number>();
    const failures = new Map<string, string>();
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        tried++;
        const key = `${r.route.method} ${r.route.url}`;
        perRoute.set(key, (perRoute.get(key) ?? 0) + 1);
        const token = fx.tokens[r.role];
        const headers: Record<string, string> = {};
        if (token) headers.authorization = `Bearer ${token}`;
        if (r.contentType) headers['content-type'] = r.contentType;
        const res = await sys.app.inject({
          method: r.route.method as 'GET',
          url: r.query ? `${r.path}?${r.query}` : r.path,
          headers,
          ...(r.payload === undefined ? {} : { payload: r.payload }),
        });
        const statusClass = `${Math.floor(res.statusCode / 100)}xx`;
        byClass[statusClass] = (byClass[statusClass] ?? 0) + 1;
        const json = res.headers['content-type']?.toString().startsWith('application/json')
          ? tryJson(res.body)
          : undefined;
        const code = (json as { error?: { code?: unknown } } | undefined)?.error?.code;
        const problem =
          res.statusCode >= 500 && environmental5xx[key] !== code
            ? `${res.statusCode} ${String(code)}`
            : res.statusCode >= 400 && !hasErrorShape(json)
              ? `${res.statusCode} outside the error shape`
              : undefined;
        // One example per route and problem: the first seen, with what to send to reproduce it.
        if (problem && !failures.has(`${key} → ${problem}`)) {
          failures.set(
            `${key} → ${problem}`,
            `${res.body.slice(0, 300)} ← as ${r.role} ${r.route.method} ${r.path}?${abbreviated(r.query)} ${r.contentType ?? ''} ${String(r.payload ?? '').slice(0, 300)}`,
          );
        }
      }),
      { numRuns: RUNS_PER_ROUTE * routes.length, seed: SEED, interruptAfterTimeLimit: TIME_LIMIT_MS },
    );

    const fivexx = [...failures.keys()].filter((k) => /→ 5\d\d/.test(k)).length;
    console.log(
      `fuzz: ${tried} HTTP inputs over ${routes.length} routes (seed ${SEED}; ${JSON.stringify(byClass)}), ${byClass['5xx'] ?? 0} 5xx (${fivexx} distinct), ${failures.size - fivexx} distinct shape breaks`,
    );
    expect(Object.fromEntries(failures)).toEqual({});
    // Every route was tried, and enough to mean something.
    expect(routes.filter((r) => (perRoute.get(`${r.method} ${r.url}`) ?? 0) < 10).map((r) => r.url)).toEqual([]);
  }, 240_000);
});

/** A request's query for the report: long runs of one character shortened (`x{300}`), cut at 400. */
function abbreviated(text: string): string {
  return text.replace(/(.)\1{19,}/g, (run, c: string) => `${c}{${run.length}}`).slice(0, 400);
}

function tryJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function hasErrorShape(body: unknown): boolean {
  const error = (body as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
  return typeof error?.code === 'string' && /^[A-Z][A-Z0-9_]*$/.test(error.code) && typeof error.message === 'string';
}
