import type { Queryable } from '@vigia/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, registerVehicle, startTestSystem, type Target, type TestSystem } from './support.js';

interface Figures {
  bookings: number;
  offered: number;
  acceptedFirstOffer: number;
  firstOfferAcceptedShare: number | null;
  accepted: number;
  acceptP50S: number | null;
  acceptP90S: number | null;
  pickupP50S: number | null;
  expired: number;
  cancelled: number;
}
interface Report {
  operatorId: string | null;
  from: string;
  to: string;
  timeZone: string;
  hours: (Figures & { hour: string; start: string })[];
  totals: Figures;
}

let seq = 0;
/**
 * One booking as the booking service leaves it, with its offers (`[seconds after taking, response]`,
 * each open 20 s): written by SQL, so that the times the report measures are known to the second.
 */
async function booking(
  db: Queryable,
  b: {
    operatorId: string;
    pack?: string;
    vehicleId: string;
    createdAt: string;
    status: 'completed' | 'expired' | 'cancelled' | 'on-board';
    offers?: [number, 'accepted' | 'declined' | 'expired'][];
    acceptedAfterS?: number;
    arrivedAfterS?: number;
    onBoardAfterS?: number;
  },
): Promise<void> {
  const id = `bk_report${String(++seq).padStart(15, '0')}`;
  const t0 = Date.parse(b.createdAt);
  const at = (s: number | undefined) => (s === undefined ? null : new Date(t0 + s * 1000));
  await db.query(
    `INSERT INTO bookings (id, operator_id, pack, mode, status, pickup_lat, pickup_lon, created_by, created_at,
       updated_at, accepted_at, arrived_at, on_board_at, completed_at, cancelled_at, cancelled_by, expired_at,
       expires_at, vehicle_id)
     VALUES ($1, $2, $3, 'auto', $4, -15.7939, -47.8828, 'admin', $5, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
    [
      id,
      b.operatorId,
      b.pack ?? 'df-taxi',
      b.status,
      new Date(t0),
      at(b.acceptedAfterS),
      at(b.arrivedAfterS),
      at(b.onBoardAfterS),
      b.status === 'completed' ? at((b.onBoardAfterS ?? 0) + 600) : null,
      b.status === 'cancelled' ? at(30) : null,
      b.status === 'cancelled' ? 'admin' : null,
      b.status === 'expired' ? at(300) : null,
      at(300),
      b.acceptedAfterS === undefined ? null : b.vehicleId,
    ],
  );
  for (const [k, [afterS, response]] of (b.offers ?? []).entries()) {
    await db.query(
      `INSERT INTO booking_offers (id, booking_id, seq, vehicle_id, offered_at, expires_at, response, responded_at,
         responded_by, eta_s, basis)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'system', 120, 'eta')`,
      [
        `of_${id.slice(3)}${k}`,
        id,
        k + 1,
        b.vehicleId,
        at(afterS - (response === 'expired' ? 20 : 5)),
        at(afterS + 20),
        response,
        at(afterS),
      ],
    );
  }
}

/**
 * `GET /v1/bookings/report` (issue 10 item 6). Most bookings are written by SQL with known times,
 * so every figure can be checked exactly; one is taken through `POST /v1/bookings` to show the
 * report reads what the booking routes write.
 */
describe.each<Target>(['pglite', 'postgres'])('dispatch report (%s)', (target) => {
  let sys: TestSystem;
  let opA: string;
  let opB: string;
  let dispatcherToken: string;
  let regulatorToken: string;
  const range = 'from=2026-11-20T16:00:00Z&to=2026-11-20T20:00:00Z';

  beforeAll(async () => {
    sys = await startTestSystem(target);
    const a = await registerVehicle(sys);
    const b = await registerVehicle(sys, { pack: 'belem-taxi' });
    opA = a.operatorId;
    opB = b.operatorId;
    const user = async (role: string, operatorIds: string[]) =>
      (await api<{ token: string }>(sys, 'POST', '/v1/users', { name: `Report ${role}`, role, operatorIds })).body
        .token;
    dispatcherToken = await user('dispatcher', [opA]);
    regulatorToken = await user('regulator', []);
    const v = a.vehicleId;
    // 14:00–15:00 in Brasília (17:00Z): accepted first offer after 20 s, at the pickup 300 s later;
    // declined then accepted after 60 s, on board 240 s later (arrival unseen); expired after one
    // offer; cancelled before any offer.
    await booking(sys.db, {
      operatorId: opA,
      vehicleId: v,
      createdAt: '2026-11-20T17:05:00Z',
      status: 'completed',
      offers: [[20, 'accepted']],
      acceptedAfterS: 20,
      arrivedAfterS: 320,
      onBoardAfterS: 400,
    });
    await booking(sys.db, {
      operatorId: opA,
      vehicleId: v,
      createdAt: '2026-11-20T17:10:00Z',
      status: 'completed',
      offers: [
        [15, 'declined'],
        [60, 'accepted'],
      ],
      acceptedAfterS: 60,
      onBoardAfterS: 300,
    });
    await booking(sys.db, {
      operatorId: opA,
      vehicleId: v,
      createdAt: '2026-11-20T17:20:00Z',
      status: 'expired',
      offers: [[20, 'expired']],
    });
    await booking(sys.db, { operatorId: opA, vehicleId: v, createdAt: '2026-11-20T17:30:00Z', status: 'cancelled' });
    // 15:00–16:00: accepted first offer after 10 s, at the pickup 120 s later.
    await booking(sys.db, {
      operatorId: opA,
      vehicleId: v,
      createdAt: '2026-11-20T18:01:00Z',
      status: 'completed',
      offers: [[10, 'accepted']],
      acceptedAfterS: 10,
      arrivedAfterS: 130,
      onBoardAfterS: 200,
    });
    // Out of the range, and another operator's (Belém) in it.
    await booking(sys.db, { operatorId: opA, vehicleId: v, createdAt: '2026-11-19T17:05:00Z', status: 'cancelled' });
    await booking(sys.db, {
      operatorId: opB,
      pack: 'belem-taxi',
      vehicleId: b.vehicleId,
      createdAt: '2026-11-20T17:40:00Z',
      status: 'expired',
      offers: [[20, 'expired']],
    });
  });
  afterAll(async () => {
    await sys?.stop();
  });

  it('per local hour of the pack: counts, first-offer share, time to accept and to pickup; totals over the range', async () => {
    const res = await api<Report>(sys, 'GET', `/v1/bookings/report?operatorId=${opA}&${range}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ operatorId: opA, timeZone: 'America/Sao_Paulo' });
    expect(res.body.hours).toEqual([
      {
        hour: '2026-11-20T14:00',
        start: '2026-11-20T17:00:00.000Z',
        bookings: 4,
        offered: 3,
        acceptedFirstOffer: 1,
        firstOfferAcceptedShare: 0.3333,
        accepted: 2,
        acceptP50S: 40,
        acceptP90S: 56,
        pickupP50S: 270,
        expired: 1,
        cancelled: 1,
      },
      {
        hour: '2026-11-20T15:00',
        start: '2026-11-20T18:00:00.000Z',
        bookings: 1,
        offered: 1,
        acceptedFirstOffer: 1,
        firstOfferAcceptedShare: 1,
        accepted: 1,
        acceptP50S: 10,
        acceptP90S: 10,
        pickupP50S: 120,
        expired: 0,
        cancelled: 0,
      },
    ]);
    // Medians over the five bookings, not of the hours' medians.
    expect(res.body.totals).toEqual({
      bookings: 5,
      offered: 4,
      acceptedFirstOffer: 2,
      firstOfferAcceptedShare: 0.5,
      accepted: 3,
      acceptP50S: 20,
      acceptP90S: 52,
      pickupP50S: 240,
      expired: 1,
      cancelled: 1,
    });
    // Another zone moves the hours' labels, not their instants.
    const utc = await api<Report>(sys, 'GET', `/v1/bookings/report?operatorId=${opA}&${range}&tz=UTC`);
    expect(utc.body.hours.map((h) => [h.hour, h.start])).toEqual([
      ['2026-11-20T17:00', '2026-11-20T17:00:00.000Z'],
      ['2026-11-20T18:00', '2026-11-20T18:00:00.000Z'],
    ]);
    // A Belém operator's hours are in Belém time.
    const belem = await api<Report>(sys, 'GET', `/v1/bookings/report?operatorId=${opB}&${range}`);
    expect([belem.body.timeZone, belem.body.hours.map((h) => h.hour), belem.body.totals.expired]).toEqual([
      'America/Belem',
      ['2026-11-20T14:00'],
      1,
    ]);
  });

  it('a dispatcher sees its operators only; a regulator all; bounds on the range and the zone', async () => {
    const mine = await api<Report>(sys, 'GET', `/v1/bookings/report?${range}`, undefined, dispatcherToken);
    expect([mine.status, mine.body.operatorId, mine.body.totals.bookings]).toEqual([200, null, 5]);
    const other = await api<{ error: { code: string } }>(
      sys,
      'GET',
      `/v1/bookings/report?operatorId=${opB}&${range}`,
      undefined,
      dispatcherToken,
    );
    expect([other.status, other.body.error.code]).toEqual([403, 'FORBIDDEN']);
    const all = await api<Report>(sys, 'GET', `/v1/bookings/report?${range}`, undefined, regulatorToken);
    expect([all.body.totals.bookings, all.body.totals.expired]).toEqual([6, 2]);

    const error = async (query: string) => {
      const r = await api<{ error: { code: string } }>(sys, 'GET', `/v1/bookings/report?${query}`);
      return [r.status, r.body.error.code];
    };
    expect(await error('from=2026-10-01T00:00:00Z&to=2026-11-02T00:00:00Z')).toEqual([400, 'RANGE_TOO_LARGE']);
    expect(await error('from=2026-11-20T20:00:00Z&to=2026-11-20T16:00:00Z')).toEqual([400, 'INVALID_RANGE']);
    expect(await error(`${range}&tz=Mars/Olympus_Mons`)).toEqual([400, 'INVALID_TIME_ZONE']);
    expect(await error(`${range}&tz=${encodeURIComponent("'; DROP TABLE bookings; --")}`)).toEqual([
      400,
      'VALIDATION_FAILED',
    ]);
    expect(
      (await api(sys, 'GET', '/v1/bookings/report?from=2026-11-01T00:00:00Z&to=2026-12-01T00:00:00Z')).status,
    ).toBe(200);
  });

  it('as CSV (format=csv or Accept: text/csv): a row per hour and a total row', async () => {
    const byFormat = await fetch(`${sys.url}/v1/bookings/report?operatorId=${opA}&${range}&format=csv`, {
      headers: { authorization: `Bearer ${sys.adminToken}` },
    });
    const byAccept = await fetch(`${sys.url}/v1/bookings/report?operatorId=${opA}&${range}`, {
      headers: { authorization: `Bearer ${sys.adminToken}`, accept: 'text/csv' },
    });
    expect(byFormat.headers.get('content-type')).toContain('text/csv');
    const csv = await byFormat.text();
    expect(await byAccept.text()).toBe(csv);
    const lines = csv.trimEnd().split('\r\n');
    expect(lines).toEqual([
      'hour,start,bookings,offered,acceptedFirstOffer,firstOfferAcceptedShare,accepted,acceptP50S,acceptP90S,pickupP50S,expired,cancelled,timeZone',
      '2026-11-20T14:00,2026-11-20T17:00:00.000Z,4,3,1,0.3333,2,40,56,270,1,1,America/Sao_Paulo',
      '2026-11-20T15:00,2026-11-20T18:00:00.000Z,1,1,1,1,1,10,10,120,0,0,America/Sao_Paulo',
      'total,,5,4,2,0.5,3,20,52,240,1,1,America/Sao_Paulo',
    ]);
  });

  it('counts a booking taken through POST /v1/bookings (default range: the last 24 h)', async () => {
    const taken = await api<{ id: string }>(sys, 'POST', '/v1/bookings', {
      operatorId: opA,
      pickup: { lat: -15.7939, lon: -47.8828, address: 'Conjunto Nacional' },
      mode: 'manual',
    });
    expect(taken.status).toBe(201);
    const res = await api<Report>(sys, 'GET', `/v1/bookings/report?operatorId=${opA}`);
    expect(res.body.totals.bookings).toBe(1);
    expect(Date.parse(res.body.to) - Date.parse(res.body.from)).toBe(86_400_000);
  });
});
