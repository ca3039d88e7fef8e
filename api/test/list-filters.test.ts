import { upsertViolations, type ViolationUpsert } from '@vigia/ingest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, registerVehicle, startTestSystem, type TestSystem } from './support.js';

/**
 * Strict filters (core/src/http/query-filters.ts): every `GET /v1/...` route of the route table
 * refuses a query parameter it does not know with 400 UNKNOWN_FILTER in the API.md error shape,
 * naming it and listing the ones it accepts; a route that declares no query schema accepts none.
 * The rule is generated from the route table (`app.accessRoutes()`), so a route added tomorrow is
 * covered without a line here. Routes outside `/v1/` (the dashboard's files, /health, /ready,
 * /metrics) are not the API's reads and are left out. Then the documented violation and vehicle
 * filters are shown to narrow, on PostgreSQL with seeded rows, each against the expected set.
 */

interface ErrorBody {
  error: { code: string; message: string; details?: { unknown?: string[]; accepted?: string[] } };
}
interface Page<T> {
  items: T[];
  next: string | null;
}
interface Violation {
  id: string;
  ruleId: string;
}
interface Vehicle {
  id: string;
  plate: string;
}

describe('list filters', () => {
  let sys: TestSystem;
  const t0 = Date.parse('2026-11-20T12:00:00Z');
  /** Seeded violations by name, with the facts each filter is asserted against. */
  const seeded: Record<string, { id: string; facts: ViolationUpsert }> = {};
  let vehicles: Awaited<ReturnType<typeof registerVehicle>>[] = [];
  let plates: string[] = [];

  beforeAll(async () => {
    sys = await startTestSystem('postgres');
    vehicles = [
      await registerVehicle(sys, { operatorId: 'op-filter-a' }),
      await registerVehicle(sys, { operatorId: 'op-filter-a' }),
      await registerVehicle(sys, { operatorId: 'op-filter-b', vehicle: { status: 'suspended' } }),
      await registerVehicle(sys, { pack: 'belem-taxi', operatorId: 'op-filter-c' }),
    ];
    plates = await Promise.all(
      vehicles.map(async (v) => (await api<Vehicle>(sys, 'GET', `/v1/vehicles/${v.vehicleId}`)).body.plate),
    );
    const event = (
      key: string,
      vehicle: number,
      startOffsetMin: number,
      extra: Partial<ViolationUpsert> = {},
    ): ViolationUpsert => {
      const v = vehicles[vehicle]!;
      const startedAt = new Date(t0 + startOffsetMin * 60_000);
      return {
        eventKey: `filters-${key}`,
        ruleId: 'DF_BANDEIRA2_MISUSE',
        pack: vehicle === 3 ? 'belem-taxi' : 'df-taxi',
        legalBasis: ['Art. 45 III'],
        description: 'Bandeira II fora do horário permitido',
        descriptionEn: 'Tariff 2 outside its hours',
        vehicleId: v.vehicleId,
        plate: plates[vehicle] ?? null,
        operatorId: v.operatorId,
        permitNumber: null,
        driverId: null,
        variant: null,
        phase: 'final',
        startedAt,
        endedAt: new Date(startedAt.getTime() + 60_000),
        lat: -15.79,
        lon: -47.88,
        place: null,
        confidence: 'confirmed',
        measured: {},
        penalty: {},
        recidivism: { count: 0, windowDays: 730 },
        evidenceFrom: startedAt,
        evidenceTo: new Date(startedAt.getTime() + 60_000),
        ...extra,
      };
    };
    const facts = {
      a1: event('a1', 0, 0),
      a2: event('a2', 0, 30, { ruleId: 'DF_OVER_CAPACITY', legalBasis: ['Art. 24'] }),
      b1: event('b1', 1, 60, { lat: -15.6, lon: -47.7 }),
      c1: event('c1', 2, 90, { ruleId: 'DF_OVER_CAPACITY', legalBasis: ['Art. 24'] }),
      d1: event('d1', 3, 120, { ruleId: 'BELEM_DIV_EXPIRED', lat: -1.45, lon: -48.49 }),
    };
    const stored = await sys.db.transaction((tx) => upsertViolations(tx, Object.values(facts)));
    Object.keys(facts).forEach((name, i) => {
      seeded[name] = { id: stored[i]!.id, facts: facts[name as keyof typeof facts] };
    });
    const confirmed = await api(sys, 'POST', `/v1/violations/${seeded.a2!.id}/review`, {
      decision: 'confirm',
      reason: 'Trace and count agree',
    });
    expect(confirmed.status).toBe(200);
  }, 60_000);
  afterAll(async () => {
    await sys?.stop();
  });

  it('every GET /v1 route of the route table refuses an unknown filter with 400 UNKNOWN_FILTER', async () => {
    const reads = sys.app.accessRoutes().filter((r) => r.method === 'GET' && r.url.startsWith('/v1/'));
    expect(reads.length).toBeGreaterThan(20);
    const failures: string[] = [];
    const acceptedBy: Record<string, string[]> = {};
    for (const route of reads) {
      // The check runs before the handler: a path parameter needs no existing record.
      const path = route.url.replace(/:[A-Za-z]+/g, 'x');
      const res = await api<ErrorBody>(sys, 'GET', `${path}?notAFilter=1`);
      const error = res.body?.error;
      if (res.status !== 400 || error?.code !== 'UNKNOWN_FILTER') {
        failures.push(`${route.url} → ${res.status} ${error?.code ?? JSON.stringify(res.body).slice(0, 100)}`);
        continue;
      }
      expect(error.message, route.url).toContain("'notAFilter'");
      expect(error.details?.unknown, route.url).toEqual(['notAFilter']);
      acceptedBy[route.url] = error.details?.accepted ?? [];
    }
    expect(failures).toEqual([]);
    // A key a route declares is never refused as unknown (a malformed value may still be a 400).
    for (const [url, accepted] of Object.entries(acceptedBy)) {
      for (const key of accepted) {
        const res = await fetch(`${sys.url}${url.replace(/:[A-Za-z]+/g, 'x')}?${key}=`, {
          headers: { authorization: `Bearer ${sys.adminToken}` },
        });
        const text = await res.text();
        expect(text, `${url}?${key}`).not.toContain('UNKNOWN_FILTER');
      }
    }
    // The paged lists keep their paging parameters; the documented violation filters are all there.
    for (const url of ['/v1/vehicles', '/v1/operators', '/v1/stops', '/v1/violations', '/v1/quarantine']) {
      expect(acceptedBy[url], url).toEqual(expect.arrayContaining(['limit', 'cursor']));
    }
    expect(acceptedBy['/v1/violations']).toEqual(
      expect.arrayContaining(['pack', 'ruleId', 'vehicleId', 'operatorId', 'status', 'from', 'to', 'bbox', 'plate']),
    );
    expect(acceptedBy['/v1/vehicles']).toEqual(
      expect.arrayContaining(['plate', 'permitNumber', 'operatorId', 'status', 'pack', 'q']),
    );
    expect(acceptedBy['/v1/me']).toEqual([]);
    console.log(`list filters: ${reads.length} GET /v1 routes refuse an unknown filter`);
  });

  it('names several unknown filters at once, and the caller must be admitted before filters are judged', async () => {
    const res = await api<ErrorBody>(sys, 'GET', '/v1/violations?plat=X&vehicle=Y&pack=df-taxi');
    expect(res.status).toBe(400);
    expect(res.body.error.details?.unknown).toEqual(['plat', 'vehicle']);
    const anonymous = await api<ErrorBody>(sys, 'GET', '/v1/violations?plat=X', undefined, null);
    expect([anonymous.status, anonymous.body.error.code]).toEqual([401, 'MISSING_TOKEN']);
  });

  it('a malformed filter value is a 400 VALIDATION_FAILED, never ignored', async () => {
    for (const query of [
      '/v1/violations?status=bogus',
      '/v1/violations?from=yesterday',
      '/v1/violations?bbox=1,2,3',
      '/v1/violations?pack=mars-taxi',
      '/v1/vehicles?limit=many',
      '/v1/vehicles?plate=A&plate=B',
      `/v1/vehicles?q=${'x'.repeat(201)}`,
    ]) {
      const res = await api<ErrorBody>(sys, 'GET', query);
      expect([res.status, res.body.error.code], query).toEqual([400, 'VALIDATION_FAILED']);
    }
  });

  it('each documented violation filter narrows to exactly the matching violations', async () => {
    const ids = async (query: string) => {
      const res = await api<Page<Violation>>(sys, 'GET', `/v1/violations?${query}`);
      expect(res.status, query).toBe(200);
      return res.body.items.map((v) => v.id).sort();
    };
    const expected = (...names: string[]) => names.map((n) => seeded[n]!.id).sort();
    const [a, b, c] = vehicles;
    const plate = plates[0]!;
    const dashed = `${plate.slice(0, 3)}-${plate.slice(3)}`.toLowerCase();
    expect(await ids(`plate=${plate}`)).toEqual(expected('a1', 'a2'));
    expect(await ids(`plate=${encodeURIComponent(dashed)}`)).toEqual(expected('a1', 'a2'));
    expect(await ids(`plate=${plates[1]}`)).toEqual(expected('b1'));
    expect(await ids('ruleId=DF_OVER_CAPACITY')).toEqual(expected('a2', 'c1'));
    expect(await ids(`vehicleId=${a!.vehicleId}`)).toEqual(expected('a1', 'a2'));
    expect(await ids(`operatorId=${a!.operatorId}`)).toEqual(expected('a1', 'a2', 'b1'));
    expect(await ids(`operatorId=${c!.operatorId}`)).toEqual(expected('c1'));
    expect(await ids('status=confirmed')).toEqual(expected('a2'));
    expect(await ids('status=open')).toEqual(expected('a1', 'b1', 'c1', 'd1'));
    expect(await ids('pack=belem-taxi')).toEqual(expected('d1'));
    // from is inclusive, to exclusive, on the start.
    expect(await ids('from=2026-11-20T12:30:00Z&to=2026-11-20T13:30:00Z')).toEqual(expected('a2', 'b1'));
    expect(await ids('from=2026-11-20T13:30:00Z')).toEqual(expected('c1', 'd1'));
    expect(await ids('to=2026-11-20T12:30:00Z')).toEqual(expected('a1'));
    expect(await ids('bbox=-47.75,-15.65,-47.65,-15.55')).toEqual(expected('b1'));
    expect(await ids('bbox=-48.6,-1.5,-48.4,-1.4')).toEqual(expected('d1'));
    // Filters combine with AND.
    expect(await ids(`operatorId=${b!.operatorId}&ruleId=DF_BANDEIRA2_MISUSE`)).toEqual(expected('a1', 'b1'));
    expect(await ids(`plate=${plate}&status=open`)).toEqual(expected('a1'));
    expect(await ids('plate=ZZZ9Z99')).toEqual([]);
  });

  it('the vehicle list filters by plate, permit number, operator, status, pack and q', async () => {
    const ids = async (query: string) => {
      const res = await api<Page<Vehicle>>(sys, 'GET', `/v1/vehicles?${query}`);
      expect(res.status, query).toBe(200);
      return res.body.items.map((v) => v.id).sort();
    };
    const [a, b, c, d] = vehicles.map((v) => v.vehicleId);
    const plate = plates[1]!;
    expect(await ids(`plate=${plate.toLowerCase()}`)).toEqual([b]);
    expect(await ids(`plate=${plate.slice(0, 3)}-${plate.slice(3)}`)).toEqual([b]);
    expect(await ids('permitNumber=P-op-filter-a')).toEqual([a, b].sort());
    expect(await ids('operatorId=op-filter-b')).toEqual([c]);
    expect(await ids('status=suspended')).toEqual([c]);
    expect(await ids('pack=belem-taxi')).toEqual([d]);
    // q: a part of a plate or a permit number, any case, with or without punctuation.
    expect(await ids(`q=${plate.slice(2, 6).toLowerCase()}`)).toContain(b);
    expect(await ids('q=p-op-filter-c')).toEqual([d]);
    expect(await ids('q=popfilterc')).toEqual([d]);
  });
});
