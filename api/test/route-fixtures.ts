import type { Caller } from '@vigia/core';
import { api, nextPlate, type TestSystem } from './support.js';

/**
 * One populated system for the tests that walk the whole route table (the authorization matrix
 * and the HTTP fuzz suite): a token for every kind of caller, one existing record behind every
 * `:id`, and a valid body for every route that takes one, so a test reaches past the validation
 * it does not aim at.
 */

/** The callers a route may declare, and the callers that hold no usable token. */
export type Anonymous = 'none' | 'invalid' | 'retired' | 'rotated';
export type MatrixRole = Caller | Anonymous;
export const anonymous: readonly Anonymous[] = ['none', 'invalid', 'retired', 'rotated'];

export interface Fixtures {
  /** The bearer token of each role; `none` sends no header. */
  tokens: Record<MatrixRole, string | null>;
  /** The existing record `:id` stands for, by the route's first path segment (`vehicles`, `violations`, ...). */
  ids: Record<string, string>;
  /** The operator every scoped user (dispatcher, operator) is scoped to, and that owns the vehicles. */
  operatorId: string;
  /** `validBodies` with the references made real: the device's identifier, existing vehicles. */
  bodies: Record<string, Record<string, unknown>>;
}

const day = (offsetDays: number) => new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);

/**
 * Records behind the `:id`s are kept apart from the ones that hold the tokens: DELETE retires
 * them and `POST /:id/token` rotates them, which must not take a role's token away mid-test.
 */
export async function seedFixtures(sys: TestSystem): Promise<Fixtures> {
  const must = async <T = { id: string }>(method: string, path: string, body: unknown): Promise<T> => {
    const res = await api<T>(sys, method, path, body);
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const since = new Date(Date.now() - 86_400_000).toISOString();
  const operatorId = 'op-matrix';
  await must('POST', '/v1/operators', [
    { id: operatorId, name: 'Cooperativa Matriz', pack: 'df-taxi', kind: 'cooperative', validFrom: since },
    { id: 'op-target', name: 'Alvo', pack: 'df-taxi', validFrom: since },
    { id: 'op-fret', name: 'Fretamento Matriz', pack: 'sp-fretamento', validFrom: since },
    { id: 'op-belem', name: 'Rádio Táxi Belém', pack: 'belem-taxi', kind: 'radio-operator', validFrom: since },
  ]);
  const vehicle = (op: string, pack = 'df-taxi') => ({
    plate: nextPlate(),
    pack,
    serviceType: pack === 'sp-fretamento' ? 'fretamento-continuo' : 'taxi',
    capacity: pack === 'sp-fretamento' ? 44 : 4,
    operatorId: op,
    permitNumber: `P-${op}`,
    permitValidUntil: day(300),
    lastInspectionDate: day(-30),
    validFrom: since,
  });
  const own = await must('POST', '/v1/vehicles', vehicle(operatorId));
  const target = await must('POST', '/v1/vehicles', vehicle(operatorId));
  const bus = await must('POST', '/v1/vehicles', vehicle('op-fret', 'sp-fretamento'));
  // Dispatches are judged for Belém radio taxis only.
  const belemTaxi = await must('POST', '/v1/vehicles', vehicle('op-belem', 'belem-taxi'));
  const identifier = `IMEI-MATRIX-${Date.now()}`;
  const device = await must<{ id: string; token: string }>('POST', '/v1/devices', { vehicleId: own.id, identifier });
  // A device whose token was replaced: the old one must open nothing.
  const rotated = await must<{ id: string; token: string }>('POST', '/v1/devices', {
    vehicleId: own.id,
    identifier: `${identifier}-OLD`,
  });
  await must('POST', `/v1/devices/${rotated.id}/token`, undefined);
  const targetDevice = await must('POST', '/v1/devices', {
    vehicleId: target.id,
    identifier: `IMEI-TARGET-${Date.now()}`,
  });
  const driver = await must('POST', '/v1/drivers', { name: 'Motorista Matriz', operatorId, pack: 'df-taxi' });

  const user = (role: string, name: string) =>
    must<{ id: string; token: string }>('POST', '/v1/users', { name, role, operatorIds: [operatorId, 'op-belem'] });
  const regulator = await user('regulator', 'Regulador');
  const enforcement = await user('enforcement', 'Fiscal');
  const dispatcher = await user('dispatcher', 'Despachante');
  const operator = await user('operator', 'Operador');
  const targetUser = await user('operator', 'Alvo');
  // A regulator whose token was valid until the user was retired.
  const retired = await user('regulator', 'Aposentado');
  await must('DELETE', `/v1/users/${retired.id}`, undefined);

  const stop = await must('POST', '/v1/stops', { name: 'Parada Matriz', lat: -15.79, lon: -47.88 });
  const stand = await must('POST', '/v1/stands', validBodies.stands);
  const zone = await must('POST', '/v1/zones', validBodies.zones);
  const contract = await must('POST', '/v1/contracts', { ...validBodies.contracts, vehicleIds: [bus.id] });
  const holiday = await must('POST', '/v1/holidays', validBodies.holidays);
  const unitValue = await must('POST', '/v1/unit-values', validBodies['unit-values']);

  // A violation as the rule engine would have written it, on the scoped operator's vehicle.
  const violationId = 'vio-matrix';
  await sys.db.query(
    `INSERT INTO violations (id, event_key, rule_id, pack, legal_basis, description, description_en, vehicle_id,
       operator_id, started_at, confidence, evidence_from, evidence_to)
     VALUES ($1, $1, 'DF_TEST_RULE', 'df-taxi', ARRAY['Art. 1'], 'teste', 'test', $2, $3, now() - interval '1 hour',
       'suspected', now() - interval '2 hours', now())`,
    [violationId, own.id, operatorId],
  );
  // A notice issued from it: the verification code behind `/v1/notices/:code`.
  const notice = await fetch(`${sys.url}/v1/violations/${violationId}/notice.pdf`, {
    headers: { authorization: `Bearer ${sys.adminToken}` },
  });
  await notice.arrayBuffer();
  const noticeCode = notice.headers.get('vigia-notice-code');
  if (notice.status !== 200 || !noticeCode) throw new Error(`notice: ${notice.status}`);

  // An alert subscription of the enforcement officer (a regulator does not see it), with one
  // delivered alert in its log. The outbox rows are written as the pipeline would, already fanned out.
  const subscription = await api<{ id: string }>(
    sys,
    'POST',
    '/v1/alert-subscriptions',
    alertSubscriptionBody,
    enforcement.token,
  );
  if (subscription.status !== 201) throw new Error(`alert subscription: ${JSON.stringify(subscription.body)}`);
  const deliveryId = 'dlv_0000000000000000000000000000a1e7';
  await sys.db.query(
    `WITH e AS (
       INSERT INTO alert_events (id, violation_id, type, payload, fanned_out_at)
       VALUES ('evt_matrix', $1, 'violation.raised', alert_violation_payload($1), now()) RETURNING id, seq)
     INSERT INTO alert_deliveries (id, event_id, event_seq, violation_id, subscription_id, status, attempts, delivered_at)
     SELECT $3, e.id, e.seq, $1, $2, 'delivered', 1, now() FROM e`,
    [violationId, subscription.body.id, deliveryId],
  );

  // A booking of the scoped cooperative whose one offer (to the device's vehicle) has expired:
  // answering it is a 409, so no caller's accept records a dispatch. Written as the service
  // would, in manual mode, so the offer worker leaves it alone.
  const bookingId = 'bk_matrix0000000000000000';
  const offerId = 'of_matrix0000000000000000';
  await sys.db.query(
    `INSERT INTO bookings (id, operator_id, pack, mode, pickup_lat, pickup_lon, created_by, expires_at, next_action_at)
     VALUES ($1, $2, 'df-taxi', 'manual', -15.79, -47.88, 'admin', now() + interval '1 day', now() + interval '1 day')`,
    [bookingId, operatorId],
  );
  await sys.db.query(
    `INSERT INTO booking_offers (id, booking_id, seq, vehicle_id, offered_at, expires_at, response, responded_at, responded_by)
     VALUES ($1, $2, 1, $3, now() - interval '1 minute', now() - interval '40 seconds', 'expired', now(), 'system')`,
    [offerId, bookingId, own.id],
  );

  return {
    operatorId,
    bodies: {
      ...validBodies,
      'alert-subscriptions': alertSubscriptionBody,
      devices: { ...validBodies.devices, vehicleId: target.id },
      contracts: { ...validBodies.contracts, vehicleIds: [bus.id] },
      telemetry: { ...validBodies.telemetry, deviceId: identifier },
      dispatches: { ...validBodies.dispatches, radioOperatorId: 'op-belem', vehicleId: belemTaxi.id },
    },
    tokens: {
      admin: sys.adminToken,
      regulator: regulator.token,
      enforcement: enforcement.token,
      dispatcher: dispatcher.token,
      operator: operator.token,
      device: device.token,
      none: null,
      invalid: `vigia-${'0123456789abcdef'.repeat(3)}`,
      retired: retired.token,
      rotated: rotated.token,
    },
    ids: {
      operators: 'op-target',
      vehicles: target.id,
      devices: targetDevice.id,
      drivers: driver.id,
      users: targetUser.id,
      stops: stop.id,
      stands: stand.id,
      zones: zone.id,
      contracts: contract.id,
      holidays: holiday.id,
      'unit-values': unitValue.id,
      violations: violationId,
      notices: noticeCode,
      'alert-subscriptions': subscription.body.id,
      'alert-deliveries': deliveryId,
      bookings: bookingId,
      offers: offerId,
    },
  };
}

/** The collection a route belongs to: its first segment after `/v1/` (after `/v1/analytics/` for a record's figures). */
export function collectionOf(url: string): string | undefined {
  return /^\/v1\/(?:analytics\/)?([^/]+)/.exec(url)?.[1];
}

/** The route's URL with its parameters replaced by existing ids. */
export function concretePath(url: string, fx: Fixtures): string {
  return url.replace(/:([A-Za-z]+)/g, (_m, name: string) => {
    const collection = collectionOf(url);
    const id = collection ? fx.ids[collection] : undefined;
    if ((name !== 'id' && name !== 'code') || !id) throw new Error(`No fixture id for parameter :${name} of ${url}`);
    return encodeURIComponent(id);
  });
}

/** A webhook subscription (its target answers nothing: the port is the discard service's, unused). */
const alertSubscriptionBody = { name: 'Fiscalização Matriz', url: 'http://127.0.0.1:9/vigia-alerts' };

/**
 * A body each collection accepts on create; the fuzz suite mutates these. Ids are left out so
 * that the same body can be sent again.
 */
export const validBodies: Record<string, Record<string, unknown>> = {
  operators: { name: 'Cooperativa Nova', pack: 'df-taxi', kind: 'cooperative' },
  vehicles: {
    plate: 'FZZ1A23',
    pack: 'df-taxi',
    serviceType: 'taxi',
    capacity: 4,
    operatorId: 'op-matrix',
    permitValidUntil: '2030-01-31',
  },
  drivers: { name: 'Motorista Novo', operatorId: 'op-matrix', pack: 'df-taxi' },
  devices: { vehicleId: 'veh-unknown', identifier: 'IMEI-FUZZ-1', protocol: 'native' },
  users: { name: 'Usuário Novo', role: 'operator', operatorIds: ['op-matrix'] },
  stops: { name: 'Parada Nova', lat: -15.8, lon: -47.9, source: 'manual' },
  stands: {
    pack: 'df-taxi',
    name: 'Ponto Matriz',
    geometry: { type: 'Point', coordinates: [-47.88, -15.79] },
    radiusM: 30,
    places: 4,
    kind: 'livre',
  },
  zones: {
    pack: 'df-taxi',
    kind: 'airport',
    name: 'Zona Matriz',
    geometry: {
      type: 'Polygon',
      coordinates: [
        [
          [-47.9, -15.8],
          [-47.89, -15.8],
          [-47.89, -15.79],
          [-47.9, -15.79],
          [-47.9, -15.8],
        ],
      ],
    },
  },
  contracts: {
    operatorId: 'op-fret',
    kind: 'fretamento-continuo',
    vehicleIds: ['veh-unknown'],
    client: 'Fábrica',
    route: {
      type: 'LineString',
      coordinates: [
        [-46.63, -23.55],
        [-46.6, -23.5],
      ],
    },
    schedule: [{ daysOfWeek: [1, 2, 3, 4, 5], start: '06:00', end: '08:00' }],
    validFrom: '2026-01-01',
  },
  holidays: { pack: 'df-taxi', date: '2026-12-25', name: 'Natal' },
  'unit-values': { unit: 'UT', valueBrl: 12.5, validFrom: '2026-01-01' },
  telemetry: { deviceId: 'IMEI-MATRIX', ts: new Date().toISOString(), lat: -15.79, lon: -47.88, speedKmh: 20 },
  dispatches: { ts: new Date().toISOString(), radioOperatorId: 'op-matrix', vehicleId: 'veh-unknown' },
  bookings: { operatorId: 'op-matrix', pickup: { lat: -15.79, lon: -47.88 } },
  violations: { decision: 'confirm', reason: 'visto pelo fiscal' },
};
