import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AlertReceiver, type ReceivedAlert, verifySignature } from '../src/bench/alert-receiver.js';
import { api, overCapacityRide, registerVehicle, startTestSystem, type TestSystem } from './support.js';

/**
 * API.md "Alerts to enforcement: signed webhooks (v1.1)", end to end: violations raised by real
 * telemetry through `POST /v1/telemetry` (6 passengers in a 4-seat DF taxi for a minute:
 * DF_OVER_CAPACITY), ended by later telemetry (updated) and reviewed through the API (reviewed),
 * delivered to a real HTTP receiver that checks each signature over the raw body.
 */

interface Subscription {
  id: string;
  name: string;
  url: string;
  secret: string;
  events: string[];
}
interface Delivery {
  id: string;
  eventId?: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  lastResponseStatus: number | null;
  nextAttemptAt: string | null;
}
interface ErrorBody {
  error: { code: string; message: string };
}

const ALL_EVENTS = ['violation.raised', 'violation.updated', 'violation.reviewed'];
const sign = (secret: string, payload: string) => createHmac('sha256', secret).update(payload).digest('hex');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(
  what: string,
  probe: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 20_000,
): Promise<T> {
  const start = Date.now();
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() - start > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(100);
  }
}

describe('alerts: signed webhooks to a receiver started by the test', () => {
  let sys: TestSystem;
  let receiver: AlertReceiver;
  // Each vehicle's telemetry an hour back, a few minutes apart, so no two overlap in the rules' view.
  let clock = Date.now() - 3_600_000;

  beforeAll(async () => {
    receiver = await AlertReceiver.start();
    sys = await startTestSystem('postgres', {
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      // A second's timeout instead of 10 s, and retries a second apart, keep the test short.
      ALERT_TIMEOUT_MS: '1000',
      ALERT_BACKOFF_BASE_MS: '500',
      ALERT_BACKOFF_MAX_MS: '2000',
      ALERT_POLL_INTERVAL_MS: '100',
    });
  });
  afterAll(async () => {
    await sys?.stop();
    await receiver?.close();
  });

  async function subscribe(
    name: string,
    extra: Record<string, unknown> = {},
    token: string = sys.adminToken,
  ): Promise<Subscription> {
    const secret = `whsec-${name}-${Math.random().toString(36).slice(2)}`;
    const res = await api<Subscription>(
      sys,
      'POST',
      '/v1/alert-subscriptions',
      { name, url: receiver.url(name, secret), secret, events: ALL_EVENTS, ...extra },
      token,
    );
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.secret).toBe(secret);
    return res.body;
  }

  /** A DF taxi carrying 6 passengers for a minute: one DF_OVER_CAPACITY violation; returns its id. */
  async function raise(
    opts: { operatorId?: string } = {},
  ): Promise<{ violationId: string; dev: Awaited<ReturnType<typeof registerVehicle>>; t0: number }> {
    const dev = await registerVehicle(sys, { pack: 'df-taxi', ...opts });
    const t0 = clock;
    clock += 300_000;
    const samples = overCapacityRide(dev.identifier, t0, `trip-${dev.vehicleId}`);
    const sent = await api<{ accepted: number }>(sys, 'POST', '/v1/telemetry', samples, dev.token);
    expect(sent.body.accepted).toBe(samples.length);
    const violationId = await until('the violation', async () => {
      const list = await api<{ items: { id: string }[] }>(
        sys,
        'GET',
        `/v1/violations?vehicleId=${dev.vehicleId}&ruleId=DF_OVER_CAPACITY`,
      );
      return list.body.items[0]?.id;
    });
    return { violationId, dev, t0 };
  }

  /** The same trip goes on with 3 passengers: the violation ends (an update). */
  async function end(dev: { identifier: string; token: string; vehicleId: string }, t0: number): Promise<void> {
    const samples = Array.from({ length: 4 }, (_, i) => ({
      deviceId: dev.identifier,
      ts: new Date(t0 + (12 + i) * 5000).toISOString(),
      lat: -15.7942 + (12 + i) * 0.0004,
      lon: -47.8822,
      speedKmh: 30,
      passengers: 3,
      meter: { state: 'hired', tariff: 1, fareCents: 900 + i * 20, tripId: `trip-${dev.vehicleId}` },
    }));
    const sent = await api<{ accepted: number }>(sys, 'POST', '/v1/telemetry', samples, dev.token);
    expect(sent.body.accepted).toBe(samples.length);
  }

  const deliveredOf = (sub: Subscription, violationId: string, type?: string): ReceivedAlert[] =>
    receiver.delivered(sub.name).filter((r) => r.violationId === violationId && (!type || r.type === type));

  async function deliveries(sub: Subscription): Promise<Delivery[]> {
    const res = await api<{ items: Delivery[] }>(sys, 'GET', `/v1/alert-subscriptions/${sub.id}/deliveries`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.items;
  }

  it('signs each alert over its raw body; raised, updated and reviewed arrive in that order with their own stable ids', async () => {
    const sub = await subscribe('order');
    const { violationId, dev, t0 } = await raise();
    await until('violation.raised', () => deliveredOf(sub, violationId, 'violation.raised')[0]);
    await end(dev, t0);
    await until('violation.updated', () => deliveredOf(sub, violationId, 'violation.updated')[0]);
    const review = await api(sys, 'POST', `/v1/violations/${violationId}/review`, {
      decision: 'confirm',
      reason: 'Seis passageiros num táxi de quatro lugares, visto na câmera',
    });
    expect(review.status, JSON.stringify(review.body)).toBe(200);
    await until('violation.reviewed', () => deliveredOf(sub, violationId, 'violation.reviewed')[0]);

    const got = receiver.requests.filter((r) => r.name === sub.name && r.violationId === violationId);
    expect(got.every((r) => r.signatureValid)).toBe(true);
    // The first arrival of each type, in arrival order: raised, then updated(s), then reviewed.
    const types = got.map((r) => r.type).filter((t, i, all) => all.indexOf(t) === i);
    expect(types).toEqual(ALL_EVENTS);
    expect(got.at(-1)?.type).toBe('violation.reviewed');
    for (const r of got) {
      expect(r.headerEventId).toBe(r.eventId);
      expect(r.body.violation).not.toHaveProperty('evidence');
      expect(Number.isNaN(Date.parse(r.body.createdAt))).toBe(false);
    }
    const ids = new Set(got.map((r) => r.eventId));
    expect(ids.size).toBe(got.length); // three (or more) events, each its own id
    const raised = got[0];
    expect(raised?.body.violation).toMatchObject({
      id: violationId,
      ruleId: 'DF_OVER_CAPACITY',
      vehicleId: dev.vehicleId,
    });
    expect(got.at(-1)?.body.violation).toMatchObject({ id: violationId, status: expect.not.stringMatching(/^open$/) });
  });

  it('a receiver that checks signatures refuses one made with another secret or a tampered body', async () => {
    const sub = await subscribe('tamper');
    const { violationId } = await raise();
    const r = await until('violation.raised', () => deliveredOf(sub, violationId)[0]);
    const raw = Buffer.from(JSON.stringify(r.body));
    // The check the receiver made is not vacuous: the same verifier fails on a changed byte or secret.
    const header = (secret: string, body: Buffer) => {
      const t = Math.floor(Date.now() / 1000);
      return `t=${t},v1=${sign(secret, `${t}.${body.toString()}`)}`;
    };
    expect(verifySignature(header(sub.secret, raw), raw, sub.secret)).toBe(true);
    expect(verifySignature(header('other-secret', raw), raw, sub.secret)).toBe(false);
    expect(
      verifySignature(header(sub.secret, raw), Buffer.from(raw.toString().replace('DF_', 'XX_')), sub.secret),
    ).toBe(false);
    const stale = Math.floor(Date.now() / 1000) - 3600;
    expect(verifySignature(`t=${stale},v1=${sign(sub.secret, `${stale}.${raw}`)}`, raw, sub.secret)).toBe(false);
  });

  it('retries after a 500 with the same event id, and the delivery log shows the attempts', async () => {
    const sub = await subscribe('retry-500');
    receiver.mode = 'fail';
    try {
      const { violationId } = await raise();
      await until('two failed attempts', () =>
        receiver.requests.filter((r) => r.name === sub.name && r.violationId === violationId && r.answered === 500)
          .length >= 2
          ? true
          : undefined,
      );
      const log = await deliveries(sub);
      const pending = log.find((d) => d.status === 'pending');
      expect(pending).toMatchObject({ status: 'pending', lastResponseStatus: 500 });
      expect(pending?.attempts).toBeGreaterThanOrEqual(1);
      expect(pending?.nextAttemptAt).not.toBeNull();
      receiver.mode = 'ok';
      const ok = await until('the retry that succeeds', () => deliveredOf(sub, violationId, 'violation.raised')[0]);
      const attempts = receiver.requests.filter(
        (r) => r.name === sub.name && r.type === 'violation.raised' && r.violationId === violationId,
      );
      expect(new Set(attempts.map((a) => a.eventId))).toEqual(new Set([ok.eventId]));
      const done = await until('the log to show it delivered', async () =>
        (await deliveries(sub)).find((d) => d.status === 'delivered'),
      );
      expect(done.lastResponseStatus).toBeGreaterThanOrEqual(200);
      expect(done.lastResponseStatus).toBeLessThan(300);
      expect(done.attempts).toBeGreaterThanOrEqual(3);
    } finally {
      receiver.mode = 'ok';
    }
  });

  it('retries after a receiver that does not answer within the timeout', async () => {
    const sub = await subscribe('retry-timeout');
    receiver.mode = 'hang';
    try {
      const { violationId } = await raise();
      await until('a hung attempt', () =>
        receiver.requests.find((r) => r.name === sub.name && r.violationId === violationId),
      );
      await until('the timeout recorded', async () =>
        (await deliveries(sub)).find((d) => d.attempts >= 1 && d.status === 'pending'),
      );
      receiver.mode = 'ok';
      const ok = await until('the retry', () => deliveredOf(sub, violationId, 'violation.raised')[0]);
      const attempts = receiver.requests.filter((r) => r.name === sub.name && r.violationId === violationId);
      expect(attempts.length).toBeGreaterThanOrEqual(2);
      expect(new Set(attempts.map((a) => a.eventId))).toEqual(new Set([ok.eventId]));
    } finally {
      receiver.mode = 'ok';
    }
  });

  it('redelivers one alert on request, with the same event id', async () => {
    const sub = await subscribe('redeliver');
    const { violationId } = await raise();
    const first = await until('violation.raised', () => deliveredOf(sub, violationId, 'violation.raised')[0]);
    const log = await until('the delivered row', async () =>
      (await deliveries(sub)).find((d) => d.status === 'delivered'),
    );
    const again = await api(sys, 'POST', `/v1/alert-deliveries/${log.id}/redeliver`);
    expect(again.status, JSON.stringify(again.body)).toBeGreaterThanOrEqual(200);
    expect(again.status).toBeLessThan(300);
    await until('the redelivery', () =>
      deliveredOf(sub, violationId, 'violation.raised').length >= 2 ? true : undefined,
    );
    const both = deliveredOf(sub, violationId, 'violation.raised');
    expect(both.map((r) => r.eventId)).toEqual([first.eventId, first.eventId]);
    const missing = await api<ErrorBody>(
      sys,
      'POST',
      '/v1/alert-deliveries/dlv_00000000000000000000000000000000/redeliver',
    );
    expect(missing.status).toBe(404);
  });

  it('filters: a regulator’s subscription to one pack or one rule receives nothing else', async () => {
    const regulator = await api<{ token: string }>(sys, 'POST', '/v1/users', {
      name: 'Fiscal SEMOB',
      role: 'regulator',
    });
    expect(regulator.status).toBe(201);
    const spOnly = await subscribe('sp-only', { filter: { packs: ['sp-fretamento'] } }, regulator.body.token);
    const dfCapacity = await subscribe(
      'df-capacity',
      { filter: { ruleIds: ['DF_OVER_CAPACITY'] } },
      regulator.body.token,
    );
    const otherRule = await subscribe(
      'other-rule',
      { filter: { ruleIds: ['DF_PERMIT_EXPIRED'] } },
      regulator.body.token,
    );
    const { violationId } = await raise();
    await until('the matching subscription', () => deliveredOf(dfCapacity, violationId)[0]);
    // The others had the same chance: the worker has already fanned this event out.
    await sleep(1500);
    expect(receiver.requests.filter((r) => r.name === spOnly.name || r.name === otherRule.name)).toEqual([]);
    expect(await deliveries(spOnly)).toEqual([]);
  });

  it('scope: roles outside admin/regulator/enforcement cannot subscribe; a retired owner’s subscription receives nothing more', async () => {
    const { operatorId } = await registerVehicle(sys, { pack: 'df-taxi' });
    const operatorUser = await api<{ token: string }>(sys, 'POST', '/v1/users', {
      name: 'Cooperativa',
      role: 'operator',
      operatorIds: [operatorId],
    });
    expect(operatorUser.status).toBe(201);
    const refused = await api<ErrorBody>(
      sys,
      'POST',
      '/v1/alert-subscriptions',
      { name: 'mine', url: receiver.url('operator', 'x'.repeat(32)) },
      operatorUser.body.token,
    );
    expect(refused.status).toBe(403);

    const officer = await api<{ id: string; token: string }>(sys, 'POST', '/v1/users', {
      name: 'Agente',
      role: 'enforcement',
    });
    expect(officer.status).toBe(201);
    const sub = await subscribe('officer', {}, officer.body.token);
    const before = await raise();
    await until('the officer’s alert', () => deliveredOf(sub, before.violationId)[0]);
    expect((await api(sys, 'DELETE', `/v1/users/${officer.body.id}`)).status).toBeLessThan(300);
    const after = await raise();
    // A subscription of the admin sees it arrive, the retired officer’s never does.
    const watcher = await subscribe('watcher');
    await end(after.dev, after.t0);
    await until('the admin’s alert', () => deliveredOf(watcher, after.violationId)[0]);
    await sleep(1500);
    expect(deliveredOf(sub, after.violationId)).toEqual([]);
  });

  it('refuses bad subscriptions with 400, never 5xx', async () => {
    for (const body of [
      {},
      { name: 'x', url: 'not a url' },
      { name: 'x', url: 'ftp://127.0.0.1/x' },
      { name: 'x', url: 'http://127.0.0.1/x', events: ['violation.exploded'] },
      { name: 'x', url: 'http://127.0.0.1/x', filter: { bbox: [1, 2, 3] } },
    ]) {
      const res = await api<ErrorBody>(sys, 'POST', '/v1/alert-subscriptions', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toMatch(/^[A-Z_]+$/);
    }
  });

  it('GET, PATCH and DELETE as for the registry; the secret is shown only on creation', async () => {
    const sub = await subscribe('crud');
    const got = await api<Subscription>(sys, 'GET', `/v1/alert-subscriptions/${sub.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ id: sub.id, name: 'crud' });
    expect(got.body.secret).toBeUndefined();
    const patched = await api<Subscription>(sys, 'PATCH', `/v1/alert-subscriptions/${sub.id}`, { name: 'crud-2' });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ name: 'crud-2', events: ALL_EVENTS });
    const list = await api<{ items: Subscription[] }>(sys, 'GET', '/v1/alert-subscriptions');
    expect(list.body.items.map((s) => s.id)).toContain(sub.id);
    expect((await api(sys, 'DELETE', `/v1/alert-subscriptions/${sub.id}`)).status).toBeLessThan(300);
    const { violationId } = await raise();
    await sleep(1500);
    expect(receiver.requests.filter((r) => r.name === 'crud' && r.violationId === violationId)).toEqual([]);
  });
});

describe('alerts: a receiver that keeps failing for the whole retry window', () => {
  let sys: TestSystem;
  let receiver: AlertReceiver;
  beforeAll(async () => {
    receiver = await AlertReceiver.start();
    // The 24 h window (ALERT_MAX_AGE_MS) cut to 2 s: the same rule, seen within the test.
    sys = await startTestSystem('postgres', {
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      ALERT_TIMEOUT_MS: '1000',
      ALERT_BACKOFF_BASE_MS: '300',
      ALERT_BACKOFF_MAX_MS: '600',
      ALERT_POLL_INTERVAL_MS: '100',
      ALERT_MAX_AGE_MS: '2000',
    });
  });
  afterAll(async () => {
    await sys?.stop();
    await receiver?.close();
  });

  it('marks its alerts failed, stops retrying them, and shows the subscription failing', async () => {
    const secret = 'failing-receiver-secret-0123456789';
    const sub = await api<Subscription & { failing: boolean }>(sys, 'POST', '/v1/alert-subscriptions', {
      name: 'failing',
      url: receiver.url('failing', secret),
      secret,
    });
    expect(sub.status).toBe(201);
    expect(sub.body.failing).toBe(false);
    receiver.mode = 'fail';
    const dev = await registerVehicle(sys, { pack: 'df-taxi' });
    const t0 = Date.now() - 3_600_000;
    const samples = overCapacityRide(dev.identifier, t0, 'trip-failing');
    expect((await api(sys, 'POST', '/v1/telemetry', samples, dev.token)).status).toBe(200);
    const failed = await until('the alert failed', async () => {
      const log = await api<{ items: Delivery[] }>(sys, 'GET', `/v1/alert-subscriptions/${sub.body.id}/deliveries`);
      return log.body.items.find((d) => d.status === 'failed');
    });
    expect(failed.attempts).toBeGreaterThanOrEqual(2);
    expect(failed.lastResponseStatus).toBe(500);
    // Shown failing once its first failure is ALERT_MAX_AGE_MS old: on a loaded machine the first
    // attempt can come late, give up at once, and the flag follow up to that long after.
    await until('the subscription shown failing', async () => {
      const shown = await api<{ failing: boolean }>(sys, 'GET', `/v1/alert-subscriptions/${sub.body.id}`);
      return shown.body.failing || undefined;
    });
    const requests = receiver.requests.length;
    await sleep(1500);
    expect(receiver.requests.length).toBe(requests); // not retried forever
  });
});
