import type { Booking } from '@vigia/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BEL,
  BSB,
  booking,
  bookingWhen,
  type ErrorBody,
  must,
  north,
  openOffer,
  report,
  since,
  type Taxi,
  taxi,
  twoCooperatives,
} from './dispatch-bookings-support.js';
import { api, startTestSystem, type TestSystem } from './support.js';

/**
 * Who may be offered a booking, who may answer an offer, and which operators may take bookings at
 * all (API.md "Radio-taxi dispatch"; api/src/dispatch/README.md). Each taxi below has exactly one
 * reason not to be offered, and is nearer the pickup than the one taxi in order: the booking goes
 * to that one, and assigning any of the others by hand is a 409 naming the reason.
 */

const day = (offsetDays: number) => new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);
type Defect = 'offline' | 'hired' | 'suspended' | 'permitExpired' | 'foreign' | 'busy';

describe('who may be offered a booking, and who may answer', () => {
  let sys: TestSystem;
  const run = Math.random().toString(36).slice(2, 7);
  const coop = `coop-${run}`;
  const other = `other-${run}`;
  let dispatcher: string;
  let otherDispatcher: string;
  let regulator: string;
  const bad = {} as Record<Defect, Taxi>;
  let good: Taxi;
  let busyBooking: Booking;

  beforeAll(async () => {
    sys = await startTestSystem('postgres', { DISPATCH_OFFER_TIMEOUT_S: '60', DISPATCH_POLL_INTERVAL_MS: '100' });
    ({ dispatcher, otherDispatcher, regulator } = await twoCooperatives(sys, run, coop, other));
    bad.offline = await taxi(sys, 'df-taxi', coop);
    bad.hired = await taxi(sys, 'df-taxi', coop);
    bad.suspended = await taxi(sys, 'df-taxi', coop, { status: 'suspended' });
    bad.permitExpired = await taxi(sys, 'df-taxi', coop, { permitValidUntil: day(-2) });
    bad.foreign = await taxi(sys, 'df-taxi', other);
    bad.busy = await taxi(sys, 'df-taxi', coop);
    good = await taxi(sys, 'df-taxi', coop);

    // Offline: its last position is five minutes old (OFFLINE_AFTER_S is 120).
    await report(sys, bad.offline, north(BSB, 100), { agoS: 300 });
    await report(sys, bad.hired, north(BSB, 150), { meter: 'hired' });
    await report(sys, bad.suspended, north(BSB, 200));
    await report(sys, bad.permitExpired, north(BSB, 250));
    await report(sys, bad.foreign, north(BSB, 300));
    await report(sys, bad.busy, north(BSB, 350));
    await report(sys, good, north(BSB, 900));
    // Busy: it holds the open offer of another booking, picked up right where it stands.
    busyBooking = await must<Booking>(sys, 'POST', '/v1/bookings', { operatorId: coop, pickup: north(BSB, 360) });
    expect((await openOffer(sys, busyBooking.id, 1)).vehicleId).toBe(bad.busy.vehicleId);
  });
  afterAll(async () => {
    await sys?.stop();
  });

  it('offers the booking to the one taxi in order, however much nearer the others are', async () => {
    const b = await must<Booking>(sys, 'POST', '/v1/bookings', { operatorId: coop, pickup: BSB });
    const offer = await openOffer(sys, b.id, 1);
    expect(offer.vehicleId).toBe(good.vehicleId);
    // Declined: nobody else may take it now, so it stays pending and keeps looking, never back to the decliner.
    expect((await api(sys, 'POST', `/v1/offers/${offer.id}/decline`, undefined, good.token)).status).toBe(200);
    await bookingWhen(sys, b.id, 'pending again', (x) => x.status === 'pending');
    await new Promise((r) => setTimeout(r, 1000));
    const after = await booking(sys, b.id);
    expect(after.status).toBe('pending');
    expect(after.offers.map((o) => [o.vehicleId, o.response])).toEqual([[good.vehicleId, 'declined']]);
  });

  it('refuses a manual assignment of each ineligible taxi with 409 and the reason', async () => {
    const b = await must<Booking>(sys, 'POST', '/v1/bookings', { operatorId: coop, pickup: BSB, mode: 'manual' });
    const reasons: Record<string, string> = {};
    for (const [defect, t] of Object.entries(bad)) {
      const res = await api<ErrorBody>(
        sys,
        'POST',
        `/v1/bookings/${b.id}/assign`,
        { vehicleId: t.vehicleId },
        dispatcher,
      );
      expect(res.status, defect).toBe(409);
      reasons[defect] = res.body.error.code;
    }
    expect(reasons).toEqual({
      offline: 'VEHICLE_OFFLINE',
      hired: 'VEHICLE_NOT_FREE',
      suspended: 'VEHICLE_SUSPENDED',
      permitExpired: 'PERMIT_EXPIRED',
      foreign: 'VEHICLE_NOT_OF_OPERATOR',
      busy: 'VEHICLE_BUSY',
    });
    // An id that does not exist reads the same to a dispatcher as another cooperative's taxi.
    const ghost = await api<ErrorBody>(sys, 'POST', `/v1/bookings/${b.id}/assign`, { vehicleId: 'veh-x' }, dispatcher);
    expect([ghost.status, ghost.body.error.code]).toEqual([409, 'VEHICLE_NOT_OF_OPERATOR']);
    // A manual booking is never offered by the worker.
    expect((await booking(sys, b.id)).offers).toEqual([]);
    // The taxi in order is assigned: accepted at once, as if it had accepted an offer.
    const ok = await api<Booking>(
      sys,
      'POST',
      `/v1/bookings/${b.id}/assign`,
      { vehicleId: good.vehicleId },
      dispatcher,
    );
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body).toMatchObject({ status: 'accepted', vehicleId: good.vehicleId });
    expect(ok.body.offers).toEqual([
      expect.objectContaining({ vehicleId: good.vehicleId, response: 'accepted', basis: 'manual' }),
    ]);
    const again = await api<ErrorBody>(sys, 'POST', `/v1/bookings/${b.id}/assign`, { vehicleId: good.vehicleId });
    expect([again.status, again.body.error.code]).toEqual([409, 'BOOKING_CLOSED']);
    // Now it serves this booking: it is busy for any other.
    const next = await must<Booking>(sys, 'POST', '/v1/bookings', { operatorId: coop, pickup: BSB, mode: 'manual' });
    const busy = await api<ErrorBody>(sys, 'POST', `/v1/bookings/${next.id}/assign`, { vehicleId: good.vehicleId });
    expect([busy.status, busy.body.error.code]).toEqual([409, 'VEHICLE_BUSY']);
    await must(sys, 'POST', `/v1/bookings/${b.id}/cancel`, { reason: 'fim do teste' });
    await must(sys, 'POST', `/v1/bookings/${next.id}/cancel`);
  });

  it("answers: the offered taxi's device and its operator's dispatcher yes; another taxi's device or dispatcher 404, a regulator 403", async () => {
    const offer = busyBooking.offers[0] ?? (await openOffer(sys, busyBooking.id, 1));
    const tries: [string, string, string][] = [
      ['another taxi of the cooperative', good.token, 'accept'],
      ["another cooperative's dispatcher", otherDispatcher, 'accept'],
      ["another cooperative's dispatcher", otherDispatcher, 'decline'],
    ];
    for (const [who, token, verb] of tries) {
      const res = await api<ErrorBody>(sys, 'POST', `/v1/offers/${offer.id}/${verb}`, undefined, token);
      expect([who, res.status, res.body.error.code]).toEqual([who, 404, 'OFFER_NOT_FOUND']);
    }
    const asRegulator = await api<ErrorBody>(sys, 'POST', `/v1/offers/${offer.id}/accept`, undefined, regulator);
    expect([asRegulator.status, asRegulator.body.error.code]).toEqual([403, 'FORBIDDEN']);
    // Another taxi's device does not see it; the offered taxi's does; the operator's dispatcher does.
    expect((await api<{ items: unknown[] }>(sys, 'GET', '/v1/offers', undefined, good.token)).body.items).toEqual([]);
    const own = await api<{ items: { id: string }[] }>(sys, 'GET', '/v1/offers', undefined, bad.busy.token);
    expect(own.body.items.map((o) => o.id)).toEqual([offer.id]);
    const desk = await api<{ items: { id: string }[] }>(
      sys,
      'GET',
      `/v1/offers?operatorId=${coop}`,
      undefined,
      dispatcher,
    );
    expect(desk.body.items.map((o) => o.id)).toContain(offer.id);
    const elsewhere = await api<{ items: unknown[] }>(sys, 'GET', '/v1/offers', undefined, otherDispatcher);
    expect(elsewhere.body.items).toEqual([]);
    // Nothing changed by the refused answers; the dispatcher accepts on the driver's behalf.
    const accepted = await api<{ response: string }>(
      sys,
      'POST',
      `/v1/offers/${offer.id}/accept`,
      undefined,
      dispatcher,
    );
    expect([accepted.status, accepted.body.response]).toEqual([200, 'accepted']);
    expect(await booking(sys, busyBooking.id)).toMatchObject({ status: 'accepted', vehicleId: bad.busy.vehicleId });
    const twice = await api<ErrorBody>(sys, 'POST', `/v1/offers/${offer.id}/accept`, undefined, bad.busy.token);
    expect([twice.status, twice.body.error.code]).toEqual([409, 'OFFER_CLOSED']);
  });
});

describe('Belém: bookings only through a credentialed radio operator, offered only to its declared taxis', () => {
  let sys: TestSystem;
  const run = Math.random().toString(36).slice(2, 7);
  const radio = `radio-${run}`;
  const lapsed = `lapsed-${run}`;
  const coop = `coopbel-${run}`;
  let declared: Taxi;
  let undeclared: Taxi;

  const violationsOf = async (vehicleId: string) =>
    (
      await api<{ items: { ruleId: string; measured: Record<string, unknown> }[] }>(
        sys,
        'GET',
        `/v1/violations?vehicleId=${vehicleId}&ruleId=BEL_UNAUTHORIZED_RADIO`,
      )
    ).body.items;

  beforeAll(async () => {
    sys = await startTestSystem('postgres', { DISPATCH_POLL_INTERVAL_MS: '100' });
    await must(sys, 'POST', '/v1/operators', [
      { id: coop, name: 'Cooperativa Belém', pack: 'belem-taxi', kind: 'cooperative', validFrom: since() },
      { id: 'fret', name: 'Fretamento', pack: 'sp-fretamento', validFrom: since() },
    ]);
    declared = await taxi(sys, 'belem-taxi', coop);
    undeclared = await taxi(sys, 'belem-taxi', coop);
    await must(sys, 'POST', '/v1/operators', [
      {
        id: radio,
        name: 'Rádio Táxi Docas',
        pack: 'belem-taxi',
        kind: 'radio-operator',
        credentialValidUntil: day(200),
        declaredVehicleIds: [declared.vehicleId],
        validFrom: since(),
      },
      {
        id: lapsed,
        name: 'Rádio Vencida',
        pack: 'belem-taxi',
        kind: 'radio-operator',
        credentialValidUntil: day(-3),
        declaredVehicleIds: [declared.vehicleId],
        validFrom: since(),
      },
    ]);
    await report(sys, undeclared, north(BEL, 100));
    await report(sys, declared, north(BEL, 800));
  });
  afterAll(async () => {
    await sys?.stop();
  });

  it('refuses a booking through an operator that may not dispatch: 409 OPERATOR_NOT_CREDENTIALED, 400 OPERATOR_NOT_TAXI', async () => {
    for (const operatorId of [lapsed, coop]) {
      const res = await api<ErrorBody>(sys, 'POST', '/v1/bookings', { operatorId, pickup: BEL });
      expect([operatorId, res.status, res.body.error.code]).toEqual([operatorId, 409, 'OPERATOR_NOT_CREDENTIALED']);
    }
    const charter = await api<ErrorBody>(sys, 'POST', '/v1/bookings', { operatorId: 'fret', pickup: BEL });
    expect([charter.status, charter.body.error.code]).toEqual([400, 'OPERATOR_NOT_TAXI']);
    const none = await api<ErrorBody>(sys, 'POST', '/v1/bookings', { operatorId: `nobody-${run}`, pickup: BEL });
    expect([none.status, none.body.error.code]).toEqual([404, 'OPERATOR_NOT_FOUND']);
  });

  it('offers the declared taxi, not the nearer undeclared one; the accepted offer is a dispatch that raises nothing', async () => {
    const b = await must<Booking>(sys, 'POST', '/v1/bookings', { operatorId: radio, pickup: BEL });
    const offer = await openOffer(sys, b.id, 1);
    expect(offer.vehicleId).toBe(declared.vehicleId);
    const assign = await api<ErrorBody>(sys, 'POST', `/v1/bookings/${b.id}/assign`, {
      vehicleId: undeclared.vehicleId,
    });
    expect([assign.status, assign.body.error.code]).toEqual([409, 'VEHICLE_NOT_OF_OPERATOR']);
    expect((await api(sys, 'POST', `/v1/offers/${offer.id}/accept`, undefined, declared.token)).status).toBe(200);
    const { rows } = await sys.db.query<{ radio_operator_id: string; vehicle_id: string }>(
      'SELECT radio_operator_id, vehicle_id FROM dispatches WHERE id = $1',
      [b.id],
    );
    expect(rows).toEqual([{ radio_operator_id: radio, vehicle_id: declared.vehicleId }]);
    // The rule judged it (the acceptance awaits the pipeline) and found it lawful.
    expect(await violationsOf(declared.vehicleId)).toEqual([]);
  });

  it('the same rule still fires for a dispatch of an undeclared taxi reported through POST /v1/dispatches', async () => {
    const res = await api(sys, 'POST', '/v1/dispatches', {
      ts: new Date().toISOString(),
      radioOperatorId: radio,
      vehicleId: undeclared.vehicleId,
    });
    expect(res.status).toBe(200);
    const found = await violationsOf(undeclared.vehicleId);
    expect(found).toEqual([expect.objectContaining({ ruleId: 'BEL_UNAUTHORIZED_RADIO' })]);
    expect(found[0]?.measured).toMatchObject({ radioOperatorId: radio, vehicleDeclared: false });
  });
});
