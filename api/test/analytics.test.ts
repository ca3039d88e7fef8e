import { haversineM } from '@vigia/ingest';
import { addDays, localDateTime } from '@vigia/rules';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localMidnight } from '../src/analytics/analytics-period.js';
import type {
  AuthorizationSharesResponse,
  FleetSizingResponse,
  OccupancyResponse,
  OperatorAnalyticsResponse,
  VehicleAnalyticsResponse,
  ViolationHeatResponse,
} from '../src/analytics/analytics-schemas.js';
import { fixedStand, must, since, type Taxi, taxi } from './dispatch-bookings-support.js';
import { api, startTestSystem, type TestSystem, waitFor } from './support.js';

/**
 * The analytics routes (api/src/analytics/README.md) on PostgreSQL and PGlite, from telemetry
 * sent through `POST /v1/telemetry` by the taxis' own devices, registry records made through the
 * API, and violations as the rule pipeline stores them. Every figure is checked against values computed
 * by hand from the samples sent.
 */
const DF_TZ = 'America/Sao_Paulo';
const BSB = { lat: -15.7942, lon: -47.8822 };
const north = (metres: number, from = BSB) => ({ lat: from.lat + metres / 111_195, lon: from.lon });

// On PostgreSQL, and on PGlite (the embedded mode: the same SQL, the table kept by the same ingest).
describe.each(['postgres', 'pglite'] as const)('analytics (%s)', (target) => {
  let sys: TestSystem;
  const run = Math.random().toString(36).slice(2, 7);
  const coop = `coop-${run}`;
  const company = `emp-${run}`;
  let t1: Taxi;
  let t2: Taxi;
  let operatorToken: string;
  let regulatorToken: string;
  let enforcementToken: string;
  /** Local dates in DF: D (3 days ago) and D + 1. */
  let dayD: string;
  let dayD1: string;
  /** The samples' positions, to compute distances by hand. */
  const sent: Record<string, { ts: number; lat: number; lon: number; meter: string; tariff: number }[]> = {};

  const send = async (t: Taxi, ts: number, at: { lat: number; lon: number }, meter: string, tariff = 1) => {
    const res = await api(
      sys,
      'POST',
      '/v1/telemetry',
      { deviceId: t.identifier, ts: new Date(ts).toISOString(), ...at, speedKmh: 30, meter: { state: meter, tariff } },
      t.token,
    );
    expect(res.status).toBe(200);
    const list = sent[t.vehicleId] ?? [];
    list.push({ ts, ...at, meter, tariff });
    sent[t.vehicleId] = list;
  };
  /** Distance (m) of the samples of `vehicleId` whose own time is in [from, to) (and hired ones only, if asked). */
  const distance = (vehicleId: string, from: number, to: number, hiredOnly = false) => {
    const list = sent[vehicleId] ?? [];
    let m = 0;
    for (let i = 1; i < list.length; i++) {
      const [a, b] = [list[i - 1]!, list[i]!];
      if (b.ts < from || b.ts >= to || (hiredOnly && b.meter !== 'hired')) continue;
      m += haversineM(a.lat, a.lon, b.lat, b.lon);
    }
    return m;
  };

  beforeAll(async () => {
    sys = await startTestSystem(target, { BELEM_POPULATION: '2000', INGEST_MAX_PAST_AGE_S: '0' });
    await must(sys, 'POST', '/v1/operators', [
      { id: coop, name: 'Cooperativa Candanga', pack: 'df-taxi', kind: 'cooperative', validFrom: since() },
      { id: company, name: 'Táxi Empresa Ltda', pack: 'belem-taxi', kind: 'company', validFrom: since() },
      {
        id: `coop-bel-${run}`,
        name: 'Cooperativa Paraense',
        pack: 'belem-taxi',
        kind: 'cooperative',
        validFrom: since(),
      },
    ]);
    t1 = await taxi(sys, 'df-taxi', coop);
    t2 = await taxi(sys, 'df-taxi', coop);
    // 19 more DF taxis that never report: a fleet of 21, so one taxi is 4.8 % of it, two are 9.5 %.
    for (let i = 0; i < 19; i++) await taxi(sys, 'df-taxi', coop);
    const user = async (role: string, operatorIds: string[]) =>
      (await must<{ token: string }>(sys, 'POST', '/v1/users', { name: `${role} ${run}`, role, operatorIds })).token;
    operatorToken = await user('operator', [coop]);
    regulatorToken = await user('regulator', []);
    enforcementToken = await user('enforcement', []);

    const today = localDateTime(Date.now(), DF_TZ).date;
    dayD = addDays(today, -3);
    dayD1 = addDays(today, -2);
    const midnight = localMidnight(dayD1, DF_TZ).getTime();
    // t1 across local midnight: 23:59:00 free, 23:59:30 hired on Bandeira II (30 s of D),
    // 00:00:00 hired on Bandeira I (30 s of D + 1), 00:01:00 free (60 s of D + 1).
    await send(t1, midnight - 60_000, north(0), 'free');
    await send(t1, midnight - 30_000, north(100), 'hired', 2);
    await send(t1, midnight, north(200), 'hired', 1);
    await send(t1, midnight + 60_000, north(300), 'free');
    // t2 at local noon of D + 1: 12:00 free, 12:01 and 12:02 hired (120 s hired).
    const noon = midnight + 12 * 3_600_000;
    await send(t2, noon, north(0, north(5000)), 'free');
    await send(t2, noon + 60_000, north(400, north(5000)), 'hired');
    await send(t2, noon + 120_000, north(900, north(5000)), 'hired');
  });
  afterAll(async () => {
    await sys?.stop();
  });

  it('occupancy per local day: shares of time and distance hired, the 5 % sample flag', async () => {
    const res = await api<OccupancyResponse>(
      sys,
      'GET',
      `/v1/analytics/occupancy?pack=df-taxi&from=${dayD}&to=${dayD1}`,
      undefined,
      regulatorToken,
    );
    expect(res.status).toBe(200);
    const b = res.body;
    expect([b.timeZone, b.fleet, b.minSampleShare]).toEqual([DF_TZ, 21, 0.05]);
    expect(b.fromInstant).toBe(localMidnight(dayD, DF_TZ).toISOString());
    const midnight = localMidnight(dayD1, DF_TZ).getTime();
    const [d, d1] = b.periods;
    expect(b.periods.map((p) => p.period)).toEqual([dayD, dayD1]);
    // D: t1 only (1 of 21: below 5 %), 30 s observed, all of it hired.
    expect(d).toMatchObject({ sampledVehicles: 1, sampleSufficient: false, observedS: 30, hiredS: 30, timeShare: 1 });
    expect(d!.sampleShare).toBeCloseTo(1 / 21, 10);
    expect(d!.distanceM).toBeCloseTo(distance(t1.vehicleId, 0, midnight), 3);
    expect(d!.distanceShare).toBe(1);
    // D + 1: t1 90 s (30 hired) and t2 120 s (120 hired): 2 of 21.
    expect(d1).toMatchObject({ sampledVehicles: 2, sampleSufficient: true, observedS: 210, hiredS: 150 });
    expect(d1!.timeShare).toBeCloseTo(150 / 210, 10);
    const dist1 = distance(t1.vehicleId, midnight, Infinity) + distance(t2.vehicleId, 0, Infinity);
    const hired1 = distance(t1.vehicleId, midnight, Infinity, true) + distance(t2.vehicleId, 0, Infinity, true);
    expect(d1!.distanceM).toBeCloseTo(dist1, 3);
    expect(d1!.distanceShare).toBeCloseTo(hired1 / dist1, 6);
    expect(b.totals).toMatchObject({ sampledVehicles: 2, observedS: 240, hiredS: 180, sampleSufficient: true });

    const csv = await fetch(`${sys.url}/v1/analytics/occupancy?pack=df-taxi&from=${dayD}&to=${dayD1}`, {
      headers: { authorization: `Bearer ${regulatorToken}`, accept: 'text/csv' },
    });
    const lines = (await csv.text()).trim().split('\r\n');
    expect(lines[0]).toBe(
      'Dia (hora local de America/Sao_Paulo),Frota,Veículos na amostra,Fração da frota na amostra,' +
        'Amostra mínima de 5 % atingida,Tempo observado (s),Tempo ocupado (s),Índice de ocupação por tempo,' +
        'Distância (m),Distância ocupado (m),Índice de ocupação por distância',
    );
    expect(lines.slice(1).map((l) => l.split(',').slice(0, 7).join(','))).toEqual([
      `${dayD},21,1,${1 / 21},false,30,30`,
      `${dayD1},21,2,${2 / 21},true,210,150`,
      `total,21,2,${2 / 21},true,240,180`,
    ]);
  });

  it('occupancy per local hour: every hour of the day, the hour after midnight and noon', async () => {
    const res = await api<OccupancyResponse>(
      sys,
      'GET',
      `/v1/analytics/occupancy?by=hour&from=${dayD1}&to=${dayD1}`,
      undefined,
      regulatorToken,
    );
    expect(res.status).toBe(200);
    expect(res.body.periods.length).toBe(24);
    const at = (h: string) => res.body.periods.find((p) => p.period === `${dayD1}T${h}:00`)!;
    expect(at('00')).toMatchObject({ sampledVehicles: 1, observedS: 90, hiredS: 30 });
    expect(at('00').start).toBe(localMidnight(dayD1, DF_TZ).toISOString());
    expect(at('12')).toMatchObject({ sampledVehicles: 1, observedS: 120, hiredS: 120 });
    expect(at('05')).toMatchObject({ sampledVehicles: 0, observedS: 0, timeShare: null, sampleSufficient: false });
    // A month of hours at most.
    const long = await api(
      sys,
      'GET',
      `/v1/analytics/occupancy?by=hour&from=${addDays(dayD1, -40)}&to=${dayD1}`,
      undefined,
      regulatorToken,
    );
    expect([long.status, (long.body as { error: { code: string } }).error.code]).toEqual([400, 'RANGE_TOO_LARGE']);
  });

  it('the vehicle record: Bandeira II share, hours driven, violations by rule and local month', async () => {
    // Violations of t1 either side of a local month boundary, and a dismissed one (not counted).
    const firstOfMonth = `${localDateTime(Date.now(), DF_TZ).date.slice(0, 8)}01`;
    const boundary = localMidnight(firstOfMonth, DF_TZ).getTime();
    const violation = async (id: string, rule: string, at: number, status = 'open') =>
      sys.db.query(
        `INSERT INTO violations (id, event_key, rule_id, pack, legal_basis, description, description_en, vehicle_id,
           operator_id, started_at, confidence, evidence_from, evidence_to, status, lat, lon)
         VALUES ($1, $1, $2, 'df-taxi', ARRAY['Art. 1'], 'teste', 'test', $3, $4, $5, 'confirmed', $5, $5, $6, $7, $8)`,
        [id, rule, t1.vehicleId, coop, new Date(at), status, BSB.lat, BSB.lon],
      );
    await violation(`v1-${run}`, 'DF_RIDE_WITHOUT_METER', boundary - 30 * 60_000);
    await violation(`v2-${run}`, 'DF_RIDE_WITHOUT_METER', boundary + 30 * 60_000);
    await violation(`v3-${run}`, 'DF_OVERCHARGE', boundary + 60 * 60_000);
    await violation(`v4-${run}`, 'DF_OVERCHARGE', boundary + 90 * 60_000, 'dismissed');
    const from = addDays(firstOfMonth, -1);
    const to = localDateTime(Date.now(), DF_TZ).date;
    const res = await api<VehicleAnalyticsResponse>(
      sys,
      'GET',
      `/v1/analytics/vehicles/${t1.vehicleId}?from=${from < dayD ? from : dayD}&to=${to}`,
      undefined,
      regulatorToken,
    );
    expect(res.status).toBe(200);
    const b = res.body;
    const prevMonth = from.slice(0, 7);
    const thisMonth = firstOfMonth.slice(0, 7);
    expect(b.violations).toEqual([
      { month: prevMonth, ruleId: 'DF_RIDE_WITHOUT_METER', count: 1 },
      { month: thisMonth, ruleId: 'DF_OVERCHARGE', count: 1 },
      { month: thisMonth, ruleId: 'DF_RIDE_WITHOUT_METER', count: 1 },
    ]);
    // 120 s observed at 30 km/h (no ignition reported: driven = moving); hired 60 s, 30 of them on Bandeira II.
    expect(b.totals).toMatchObject({
      observedS: 120,
      drivenS: 120,
      movingS: 120,
      hiredS: 60,
      bandeira2HiredS: 30,
      bandeira2Share: 0.5,
    });
    // (Distances are stored as real: 7 significant digits.)
    expect(b.totals.bandeira2HiredDistanceM).toBeCloseTo(haversineM(BSB.lat, BSB.lon, north(100).lat, BSB.lon), 3);
    expect(b.months.reduce((s, m) => s + m.observedS, 0)).toBe(120);

    const csv = await fetch(
      `${sys.url}/v1/analytics/vehicles/${t1.vehicleId}?from=${from < dayD ? from : dayD}&to=${to}&format=csv`,
      { headers: { authorization: `Bearer ${regulatorToken}` } },
    );
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    const lines = (await csv.text()).trim().split('\r\n');
    expect(lines[0]).toBe(
      'Mês (hora local de America/Sao_Paulo),Tempo observado (s),Horas dirigidas (s),Tempo em movimento (s),' +
        'Tempo ocupado (s),Tempo ocupado em Bandeira II (s),Fração em Bandeira II,Distância (m),' +
        'Distância ocupado (m),Distância em Bandeira II (m),Infrações,Infrações por regra',
    );
    expect(lines.at(-1)).toMatch(/^total,120,120,120,60,30,0\.5,[\d.]+,[\d.]+,[\d.]+,3,/);
    const en = await fetch(`${sys.url}/v1/analytics/vehicles/${t1.vehicleId}?format=csv&lang=en`, {
      headers: { authorization: `Bearer ${regulatorToken}` },
    });
    expect((await en.text()).split('\r\n')[0]).toMatch(/^Month \(local time in America\/Sao_Paulo\),Time observed/);
  });

  it('the heat map counts violations per H3 cell, for one rule or all', async () => {
    const res = await api<ViolationHeatResponse>(
      sys,
      'GET',
      // Up to today: the record test's violations sit either side of this month's first local midnight.
      `/v1/analytics/violation-heat?pack=df-taxi&resolution=9&ruleId=DF_OVERCHARGE&from=${addDays(dayD, -40)}&to=${localDateTime(Date.now(), DF_TZ).date}`,
      undefined,
      regulatorToken,
    );
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(1);
    expect(res.body.cells).toHaveLength(1);
    expect(res.body.cells[0]!.count).toBe(1);
    expect(Math.abs(res.body.cells[0]!.lat - BSB.lat)).toBeLessThan(0.01);
    expect(res.body.rules).toEqual([
      { ruleId: 'DF_RIDE_WITHOUT_METER', count: 2 },
      { ruleId: 'DF_OVERCHARGE', count: 1 },
    ]);
  });

  it('Belém fleet sizing against one taxi per 500 inhabitants, and the 10 % cap on legal persons', async () => {
    const company1 = await taxi(sys, 'belem-taxi', company);
    await taxi(sys, 'belem-taxi', company);
    for (let i = 0; i < 3; i++) await taxi(sys, 'belem-taxi', `coop-bel-${run}`);
    // Not authorized: a permit expired yesterday.
    await taxi(sys, 'belem-taxi', `coop-bel-${run}`, {
      permitValidUntil: new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 10),
    });
    const res0 = await api(sys, 'POST', '/v1/telemetry', {
      deviceId: company1.identifier,
      ts: new Date().toISOString(),
      lat: -1.4521,
      lon: -48.5034,
    });
    expect(res0.status).toBe(200);

    const sizing = await api<FleetSizingResponse>(sys, 'GET', '/v1/analytics/fleet-sizing', undefined, regulatorToken);
    expect(sizing.status).toBe(200);
    // BELEM_POPULATION=2000: 4 taxis allowed; 5 authorized (the expired permit is not), 1 reporting.
    expect(sizing.body).toMatchObject({
      timeZone: 'America/Belem',
      population: 2000,
      allowedTaxis: 4,
      authorizedTaxis: 5,
      activeTaxis: 1,
      inhabitantsPerAuthorizedTaxi: 400,
      inhabitantsPerActiveTaxi: 2000,
      surplus: 1,
      overLimit: true,
    });

    const shares = await api<AuthorizationSharesResponse>(
      sys,
      'GET',
      '/v1/analytics/authorization-shares?pack=belem-taxi',
      undefined,
      regulatorToken,
    );
    expect(shares.status).toBe(200);
    expect(shares.body.totalAuthorizations).toBe(5);
    expect(shares.body.legalPersons).toEqual({ authorizations: 2, share: 0.4, overCap: true });
    expect(
      shares.body.operators.map((o) => [o.operatorId, o.authorizations, o.share, o.legalPerson, o.overCap]),
    ).toEqual([
      [`coop-bel-${run}`, 3, 0.6, false, false],
      [company, 2, 0.4, true, true],
    ]);
    const csv = await fetch(`${sys.url}/v1/analytics/authorization-shares?pack=belem-taxi&format=csv`, {
      headers: { authorization: `Bearer ${regulatorToken}` },
    });
    const lines = (await csv.text()).trim().split('\r\n');
    expect(lines[0]).toBe(
      'Operador,Nome,Tipo,Pessoa jurídica,Autorizações,Fração das autorizações,Acima do limite de 10 %',
    );
    expect(lines).toContain('pessoas jurídicas (total),,,true,2,0.4,true');
  });

  it('records stand waiting times from the queue the live rules keep', async () => {
    const stand = await fixedStand(sys, `Ponto ${run}`, BSB, [t1.vehicleId]);
    const t0 = Date.now() - 240_000;
    const waiting = [];
    for (let s = 0; s <= 180; s += 5) {
      waiting.push({
        deviceId: t1.identifier,
        ts: new Date(t0 + s * 1000).toISOString(),
        ...BSB,
        speedKmh: 0,
        passengers: 0,
        meter: { state: 'free' },
      });
    }
    expect((await api(sys, 'POST', '/v1/telemetry', waiting, t1.token)).status).toBe(200);
    const entered = await waitFor('the stand queue', async () => {
      const q = await api<{ items: { vehicleId: string; enteredAt: string }[] }>(
        sys,
        'GET',
        `/v1/stands/${stand.id}/queue`,
      );
      return q.body.items[0]?.enteredAt;
    });
    // Hired at the stand 185 s after it arrived.
    const hiredAt = t0 + 185_000;
    const hire = { deviceId: t1.identifier, ts: new Date(hiredAt).toISOString(), ...BSB, speedKmh: 0, passengers: 1 };
    expect((await api(sys, 'POST', '/v1/telemetry', { ...hire, meter: { state: 'hired' } }, t1.token)).status).toBe(
      200,
    );
    const from = addDays(localDateTime(Date.now(), DF_TZ).date, -1);
    const record = await waitFor('the stand visit', async () => {
      const r = await api<VehicleAnalyticsResponse>(
        sys,
        'GET',
        `/v1/analytics/vehicles/${t1.vehicleId}?from=${from}`,
        undefined,
        operatorToken,
      );
      return r.body.standWaits.totals.visits > 0 ? r.body : undefined;
    });
    const waitS = (hiredAt - Date.parse(entered)) / 1000;
    expect(record.standWaits.totals).toEqual({
      visits: 1,
      leftHired: 1,
      meanWaitS: waitS,
      medianWaitS: waitS,
      p90WaitS: waitS,
    });
    expect(record.standWaits.byStand).toEqual([
      { standId: stand.id, name: `Ponto ${run}`, ...record.standWaits.totals },
    ]);
    // The operator's page adds up its taxis' visits.
    const op = await api<OperatorAnalyticsResponse>(
      sys,
      'GET',
      `/v1/analytics/operators/${coop}?from=${from}`,
      undefined,
      operatorToken,
    );
    expect(op.status).toBe(200);
    expect([op.body.vehicles, op.body.standWaits.totals.visits]).toEqual([21, 1]);
  });

  it('scope: an operator reads only its own records; enforcement and operators get no fleet-wide figures', async () => {
    const other = await taxi(sys, 'belem-taxi', company);
    const asOperator = (path: string) => api<{ error: { code: string } }>(sys, 'GET', path, undefined, operatorToken);
    expect((await asOperator(`/v1/analytics/vehicles/${t2.vehicleId}`)).status).toBe(200);
    expect((await asOperator(`/v1/analytics/vehicles/${other.vehicleId}`)).status).toBe(403);
    expect((await asOperator('/v1/analytics/vehicles/no-such-vehicle')).status).toBe(403);
    expect((await asOperator(`/v1/analytics/operators/${company}`)).status).toBe(403);
    expect((await asOperator('/v1/analytics/occupancy')).status).toBe(403);
    expect((await api(sys, 'GET', '/v1/analytics/vehicles/no-such-vehicle', undefined, regulatorToken)).status).toBe(
      404,
    );
    expect((await api(sys, 'GET', '/v1/analytics/fleet-sizing', undefined, enforcementToken)).status).toBe(403);
  });

  it('rejects unknown parameters, reversed and overlong periods', async () => {
    const get = (q: string) =>
      api<{ error: { code: string } }>(sys, 'GET', `/v1/analytics/occupancy${q}`, undefined, regulatorToken);
    expect((await get('?plate=ABC1D23')).body.error.code).toBe('UNKNOWN_FILTER');
    expect((await get('?from=2026-13-01')).body.error.code).toBe('VALIDATION_FAILED');
    expect((await get(`?from=${dayD1}&to=${dayD}`)).body.error.code).toBe('INVALID_RANGE');
    expect((await get(`?from=${addDays(dayD, -400)}&to=${dayD}`)).body.error.code).toBe('RANGE_TOO_LARGE');
    expect((await get(`?from=${addDays(dayD, -365)}&to=${dayD}`)).status).toBe(200);
  });
});
