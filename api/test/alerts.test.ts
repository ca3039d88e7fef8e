import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { upsertViolations, type ViolationUpsert } from '@vigia/ingest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { purgeAlertHistory } from '../src/alerts/alert-store.js';
import { backoffMs } from '../src/alerts/alert-worker.js';
import { api, startSecondApi, startTestSystem, type TestSystem, waitFor } from './support.js';

/**
 * Alert subscriptions and signed webhooks (API.md "Alerts to enforcement") against a real
 * PostgreSQL and a receiver started here: CRUD and validation, the outbox written with the
 * violation change (or not at all), signatures, retries, order, scope, the delivery log and
 * redelivery. The fault test and the latency benchmark are in alerts-faults.test.ts and the bench.
 */

interface Received {
  headers: Record<string, string | string[] | undefined>;
  raw: string;
  body: { id: string; type: string; createdAt: string; violation: Record<string, unknown> };
}

/** A receiver that records every request and answers with the next scripted status (200 once the script is spent). */
class Receiver {
  readonly received: Received[] = [];
  script: number[] = [];
  private server: Server | undefined;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        this.received.push({ headers: req.headers, raw, body: JSON.parse(raw) as Received['body'] });
        const status = this.script.shift() ?? 200;
        res.writeHead(status, { 'content-type': 'text/plain' }).end(status >= 300 ? 'internal secret body' : 'ok');
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  forViolation(id: string): Received[] {
    return this.received.filter((r) => r.body.violation.id === id);
  }
}

/** Checks a Vigia-Signature header as a receiver would. */
function verify(secret: string, raw: string, header: string, toleranceS = 300): boolean {
  const parts = Object.fromEntries(header.split(',').map((p) => p.split('=') as [string, string]));
  const t = Number(parts.t);
  if (!Number.isInteger(t) || Math.abs(Date.now() / 1000 - t) > toleranceS || !parts.v1) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${raw}`).digest();
  const given = Buffer.from(parts.v1, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

interface Subscription {
  id: string;
  secret?: string;
  name: string;
  url: string | null;
  events: string[];
  filter: Record<string, unknown>;
  failing: boolean;
  failingSince: string | null;
}
interface Delivery {
  id: string;
  eventId: string;
  type: string;
  status: string;
  attempts: number;
  lastResponseStatus: number | null;
  lastError: string | null;
  nextAttemptAt: string | null;
}
interface ErrorBody {
  error: { code: string };
}

describe('alert subscriptions and signed webhooks', () => {
  let sys: TestSystem;
  const receiver = new Receiver();
  const tokens: Record<'regulator' | 'enforcement' | 'enforcement2' | 'operator' | 'dispatcher', string> = {
    regulator: '',
    enforcement: '',
    enforcement2: '',
    operator: '',
    dispatcher: '',
  };
  const userIds: Record<string, string> = {};
  let seq = 0;

  const event = (extra: Partial<ViolationUpsert> = {}): ViolationUpsert => {
    seq++;
    const t0 = Date.now() - 600_000;
    return {
      eventKey: `alert-test-${seq}-${Math.random()}`,
      ruleId: 'DF_BANDEIRA2_MISUSE',
      pack: 'df-taxi',
      legalBasis: ['Art. 45 III'],
      description: 'Bandeira II fora do horário permitido',
      descriptionEn: 'Tariff 2 outside its hours',
      vehicleId: 'veh-alert',
      plate: 'JKL1A23',
      operatorId: 'op-alert',
      permitNumber: 'DF-0001',
      driverId: null,
      variant: null,
      phase: 'ongoing',
      startedAt: new Date(t0),
      endedAt: null,
      lat: -15.79,
      lon: -47.88,
      place: null,
      confidence: 'confirmed',
      measured: { stretchM: 250 },
      penalty: { group: 'C' },
      recidivism: { count: 0 },
      evidenceFrom: new Date(t0 - 60_000),
      evidenceTo: new Date(t0 + 60_000),
      ...extra,
    };
  };
  const raise = async (extra: Partial<ViolationUpsert> = {}) => {
    const [v] = await sys.db.transaction((tx) => upsertViolations(tx, [event(extra)]));
    return v!;
  };
  const subscribe = async (token: string, body: Record<string, unknown>) => {
    const res = await api<Subscription>(sys, 'POST', '/v1/alert-subscriptions', body, token);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body;
  };
  const deliveries = async (subId: string, token = sys.adminToken) => {
    const res = await api<{ items: Delivery[] }>(
      sys,
      'GET',
      `/v1/alert-subscriptions/${subId}/deliveries`,
      undefined,
      token,
    );
    expect(res.status).toBe(200);
    return res.body.items;
  };

  beforeAll(async () => {
    await receiver.start();
    sys = await startTestSystem('postgres', {
      ALERT_POLL_INTERVAL_MS: '50',
      ALERT_BACKOFF_BASE_MS: '300',
      ALERT_TIMEOUT_MS: '2000',
    });
    const since = new Date(Date.now() - 86_400_000).toISOString();
    for (const id of ['op-alert', 'op-other']) {
      await api(sys, 'POST', '/v1/operators', { id, name: id, pack: 'df-taxi', validFrom: since });
    }
    for (const [key, role] of [
      ['regulator', 'regulator'],
      ['enforcement', 'enforcement'],
      ['enforcement2', 'enforcement'],
      ['operator', 'operator'],
      ['dispatcher', 'dispatcher'],
    ] as const) {
      const res = await api<{ id: string; token: string }>(sys, 'POST', '/v1/users', {
        name: key,
        role,
        operatorIds: role === 'operator' || role === 'dispatcher' ? ['op-alert'] : [],
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      tokens[key] = res.body.token;
      userIds[key] = res.body.id;
    }
  });
  afterAll(async () => {
    await sys?.stop();
    await receiver.stop();
  });

  it('validates subscriptions: url or email, http(s) only, known events and filter keys, a real secret', async () => {
    const bad: [Record<string, unknown>, string][] = [
      [{ name: 'x' }, 'no target'],
      [{ name: 'x', url: receiver.url, email: 'a@b.example' }, 'both targets'],
      [{ name: 'x', url: 'ftp://127.0.0.1/x' }, 'ftp'],
      [{ name: 'x', url: 'not a url' }, 'not a url'],
      [{ name: 'x', url: receiver.url, secret: 'short' }, 'short secret'],
      [{ name: 'x', url: receiver.url, events: ['violation.deleted'] }, 'unknown event'],
      [{ name: 'x', url: receiver.url, events: [] }, 'no event'],
      [{ name: 'x', url: receiver.url, filter: { plates: ['X'] } }, 'unknown filter key'],
      [{ name: 'x', url: receiver.url, filter: { confidence: ['suspected'] } }, 'suspected only'],
      [{ name: 'x', url: receiver.url, filter: { bbox: [10, 0, 0, 10] } }, 'inverted bbox'],
      [{ name: '', url: receiver.url }, 'empty name'],
      [{ name: 'x', url: receiver.url, owner: 'someone' }, 'unknown field'],
    ];
    for (const [body, why] of bad) {
      const res = await api<ErrorBody>(sys, 'POST', '/v1/alert-subscriptions', body);
      expect(res.status, why).toBe(400);
      expect(res.body.error.code, why).toMatch(/^[A-Z_]+$/);
    }
    // No SMTP_URL in this system: an e-mail target is refused with its own code.
    const email = await api<ErrorBody>(sys, 'POST', '/v1/alert-subscriptions', {
      name: 'x',
      email: 'fiscal@agencia.example',
    });
    expect(email.status).toBe(400);
    expect(email.body.error.code).toBe('EMAIL_NOT_CONFIGURED');
  });

  it('creates, reads, patches and deletes a subscription; the secret is shown only on create', async () => {
    const created = await subscribe(tokens.enforcement, { name: 'Fiscalização', url: receiver.url });
    expect(created.secret).toMatch(/^whsec_/);
    expect(created.events).toEqual(['violation.raised']);
    expect(created.failing).toBe(false);
    const got = await api<Subscription>(
      sys,
      'GET',
      `/v1/alert-subscriptions/${created.id}`,
      undefined,
      tokens.enforcement,
    );
    expect(got.status).toBe(200);
    expect(got.body).not.toHaveProperty('secret');
    expect(got.body.url).toBe(receiver.url);

    const given = await subscribe(tokens.enforcement, {
      name: 'Own secret',
      url: receiver.url,
      secret: 'a-secret-of-my-own-0001',
    });
    expect(given.secret).toBe('a-secret-of-my-own-0001');

    const patched = await api<Subscription>(
      sys,
      'PATCH',
      `/v1/alert-subscriptions/${created.id}`,
      { name: 'Renamed', events: ['violation.raised', 'violation.reviewed'], filter: { packs: ['df-taxi'] } },
      tokens.enforcement,
    );
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      name: 'Renamed',
      events: ['violation.raised', 'violation.reviewed'],
      filter: { packs: ['df-taxi'] },
    });
    expect(patched.body).not.toHaveProperty('secret');
    const badPatch = await api(
      sys,
      'PATCH',
      `/v1/alert-subscriptions/${created.id}`,
      { url: 'gopher://x' },
      tokens.enforcement,
    );
    expect(badPatch.status).toBe(400);

    // Another officer neither sees nor changes it; the admin sees every one.
    const mine = await api<{ items: Subscription[] }>(
      sys,
      'GET',
      '/v1/alert-subscriptions',
      undefined,
      tokens.enforcement,
    );
    expect(mine.body.items.map((s) => s.id)).toEqual(expect.arrayContaining([created.id, given.id]));
    const theirs = await api<{ items: Subscription[] }>(
      sys,
      'GET',
      '/v1/alert-subscriptions',
      undefined,
      tokens.enforcement2,
    );
    expect(theirs.body.items.map((s) => s.id)).not.toContain(created.id);
    expect(
      (await api(sys, 'GET', `/v1/alert-subscriptions/${created.id}`, undefined, tokens.enforcement2)).status,
    ).toBe(404);
    expect(
      (await api(sys, 'DELETE', `/v1/alert-subscriptions/${created.id}`, undefined, tokens.regulator)).status,
    ).toBe(404);
    const all = await api<{ items: Subscription[] }>(sys, 'GET', '/v1/alert-subscriptions');
    expect(all.body.items.map((s) => s.id)).toEqual(expect.arrayContaining([created.id, given.id]));

    // Operators and dispatchers read their own operators' violations only: they own no subscription.
    for (const role of ['operator', 'dispatcher'] as const) {
      const res = await api<ErrorBody>(
        sys,
        'POST',
        '/v1/alert-subscriptions',
        { name: 'x', url: receiver.url },
        tokens[role],
      );
      expect(res.status, role).toBe(403);
    }
    expect((await api(sys, 'GET', '/v1/alert-subscriptions/sub_nonsense', undefined)).status).toBe(404);

    const deleted = await api(sys, 'DELETE', `/v1/alert-subscriptions/${created.id}`, undefined, tokens.enforcement);
    expect(deleted.status).toBe(200);
    expect((await api(sys, 'GET', `/v1/alert-subscriptions/${created.id}`, undefined, tokens.enforcement)).status).toBe(
      404,
    );
    await api(sys, 'DELETE', `/v1/alert-subscriptions/${given.id}`);
  });

  it('writes the alert event in the violation change transaction: a rolled-back write leaves none', async () => {
    const rolledBack = event();
    await expect(
      sys.db.transaction(async (tx) => {
        await upsertViolations(tx, [rolledBack]);
        throw new Error('the rest of the batch failed');
      }),
    ).rejects.toThrow('the rest of the batch failed');
    const { rows: none } = await sys.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM alert_events e JOIN violations v ON v.id = e.violation_id WHERE v.event_key = $1`,
      [rolledBack.eventKey],
    );
    expect(none[0]?.n).toBe(0);
    const { rows: noViolation } = await sys.db.query('SELECT 1 FROM violations WHERE event_key = $1', [
      rolledBack.eventKey,
    ]);
    expect(noViolation).toHaveLength(0);

    const ev = event();
    const [v] = await sys.db.transaction((tx) => upsertViolations(tx, [ev]));
    // Written again unchanged (the pipeline re-writes ongoing events): no second event.
    await sys.db.transaction((tx) => upsertViolations(tx, [ev]));
    await sys.db.transaction((tx) => upsertViolations(tx, [{ ...ev, measured: { stretchM: 900 } }]));
    const review = await api(
      sys,
      'POST',
      `/v1/violations/${v!.id}/review`,
      { decision: 'confirm', reason: 'visto' },
      tokens.regulator,
    );
    expect(review.status).toBe(200);
    // A refused review (an open → notified jump) changes nothing and writes no event.
    const refused = await api(
      sys,
      'POST',
      `/v1/violations/${v!.id}/review`,
      { decision: 'confirm', reason: 'de novo' },
      tokens.regulator,
    );
    expect(refused.status).toBe(409);
    const { rows } = await sys.db.query<{ type: string; payload: { status: string; measured: { stretchM: number } } }>(
      'SELECT type, payload FROM alert_events WHERE violation_id = $1 ORDER BY seq',
      [v!.id],
    );
    expect(rows.map((r) => r.type)).toEqual(['violation.raised', 'violation.updated', 'violation.reviewed']);
    expect(rows.map((r) => r.payload.measured.stretchM)).toEqual([250, 900, 900]);
    expect(rows[2]?.payload.status).toBe('confirmed');
  });

  it('signs each alert, retries after a 500 with the same event id, and logs the deliveries without bodies', async () => {
    const sub = await subscribe(sys.adminToken, {
      name: 'Central',
      url: receiver.url,
      events: ['violation.raised', 'violation.reviewed'],
      filter: { ruleIds: ['DF_SIGNED_RULE'] },
    });
    receiver.script = [500];
    const v = await raise({ ruleId: 'DF_SIGNED_RULE' });
    const [first, second] = await waitFor('the retry', () => {
      const got = receiver.forViolation(v.id);
      return got.length >= 2 ? got : undefined;
    });
    for (const r of [first!, second!]) {
      expect(verify(sub.secret!, r.raw, String(r.headers['vigia-signature']))).toBe(true);
      expect(verify('another-secret-entirely', r.raw, String(r.headers['vigia-signature']))).toBe(false);
      // A body altered in transit no longer matches its signature.
      expect(
        verify(sub.secret!, r.raw.replace('DF_SIGNED_RULE', 'DF_OTHER_RULE'), String(r.headers['vigia-signature'])),
      ).toBe(false);
      expect(r.headers['vigia-event-id']).toBe(r.body.id);
      expect(r.body.type).toBe('violation.raised');
      expect(r.body.violation).toMatchObject({ id: v.id, ruleId: 'DF_SIGNED_RULE', status: 'open', plate: 'JKL1A23' });
      expect(r.body.violation).not.toHaveProperty('evidence');
      expect(Date.parse(r.body.createdAt)).not.toBeNaN();
    }
    expect(second!.body.id).toBe(first!.body.id);

    const [log] = await waitFor('the delivered entry', async () => {
      const items = await deliveries(sub.id);
      return items[0]?.status === 'delivered' ? items : undefined;
    });
    expect(log).toMatchObject({
      eventId: first!.body.id,
      status: 'delivered',
      attempts: 2,
      lastResponseStatus: 200,
      nextAttemptAt: null,
    });
    expect(JSON.stringify(log)).not.toContain('internal secret body');
    const sub2 = await api<Subscription>(sys, 'GET', `/v1/alert-subscriptions/${sub.id}`);
    expect(sub2.body.failingSince).toBeNull();

    // Redelivery sends the same event again, with the same id.
    const redo = await api<Delivery>(sys, 'POST', `/v1/alert-deliveries/${log!.id}/redeliver`);
    expect(redo.status).toBe(202);
    expect(redo.body.status).toBe('pending');
    const again = await waitFor('the redelivery', () => {
      const got = receiver.forViolation(v.id);
      return got.length >= 3 ? got[2] : undefined;
    });
    expect(again.body.id).toBe(first!.body.id);
    expect(verify(sub.secret!, again.raw, String(again.headers['vigia-signature']))).toBe(true);
    await waitFor('redelivered', async () =>
      (await deliveries(sub.id))[0]?.status === 'delivered' ? true : undefined,
    );
    expect((await deliveries(sub.id))[0]).toMatchObject({ attempts: 3, status: 'delivered' });
    // Another owner cannot redeliver it, nor read its log.
    expect(
      (await api(sys, 'POST', `/v1/alert-deliveries/${log!.id}/redeliver`, undefined, tokens.enforcement)).status,
    ).toBe(404);
    expect(
      (await api(sys, 'GET', `/v1/alert-subscriptions/${sub.id}/deliveries`, undefined, tokens.enforcement)).status,
    ).toBe(404);
    expect((await api(sys, 'POST', '/v1/alert-deliveries/dlv_0123/redeliver')).status).toBe(404);
    await api(sys, 'DELETE', `/v1/alert-subscriptions/${sub.id}`);
  });

  it('follows no redirect and reads no answer: a 302 to another service is a failed attempt, the timeout too', async () => {
    const target = new Receiver();
    await target.start();
    const redirector = createServer((_req, res) => res.writeHead(302, { location: target.url }).end('moved'));
    const hanging = createServer(() => undefined);
    await new Promise<void>((resolve) => redirector.listen(0, '127.0.0.1', resolve));
    await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
    try {
      const at = (server: Server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
      const moved = await subscribe(sys.adminToken, {
        name: 'Moved',
        url: at(redirector),
        filter: { ruleIds: ['DF_MOVED_RULE'] },
      });
      const slow = await subscribe(sys.adminToken, {
        name: 'Slow',
        url: at(hanging),
        filter: { ruleIds: ['DF_MOVED_RULE'] },
      });
      const started = Date.now();
      await raise({ ruleId: 'DF_MOVED_RULE' });
      const [redirected] = await waitFor('the redirected attempt', async () => {
        const items = await deliveries(moved.id);
        return items[0]?.lastResponseStatus === 302 ? items : undefined;
      });
      expect(redirected).toMatchObject({ status: 'pending', lastResponseStatus: 302 });
      const [timedOut] = await waitFor('the timed-out attempt', async () => {
        const items = await deliveries(slow.id);
        return items[0]?.attempts && items[0].lastError ? items : undefined;
      });
      // ALERT_TIMEOUT_MS is 2 s here: the silent receiver fails the attempt then, with no status.
      expect(timedOut).toMatchObject({ status: 'pending', lastResponseStatus: null, lastError: 'TIMEOUT' });
      expect(Date.now() - started).toBeGreaterThanOrEqual(2000);
      expect(target.received).toHaveLength(0);
      for (const s of [moved, slow]) await api(sys, 'DELETE', `/v1/alert-subscriptions/${s.id}`);
    } finally {
      redirector.closeAllConnections();
      hanging.closeAllConnections();
      await new Promise((r) => redirector.close(r));
      await new Promise((r) => hanging.close(r));
      await target.stop();
    }
  });

  it('keeps the order per violation: a review waits for its raise to be delivered', async () => {
    const sub = await subscribe(sys.adminToken, {
      name: 'Ordered',
      url: receiver.url,
      events: ['violation.raised', 'violation.reviewed'],
      filter: { ruleIds: ['DF_ORDER_RULE'] },
    });
    // The raise fails twice; the review, committed meanwhile, must not overtake it.
    receiver.script = [503, 503];
    const v = await raise({ ruleId: 'DF_ORDER_RULE' });
    const review = await api(
      sys,
      'POST',
      `/v1/violations/${v.id}/review`,
      { decision: 'confirm', reason: 'confirmada' },
      tokens.enforcement,
    );
    expect(review.status).toBe(200);
    const got = await waitFor('both alerts', () => {
      const r = receiver.forViolation(v.id);
      return r.some((x) => x.body.type === 'violation.reviewed') ? r : undefined;
    });
    expect(got.map((r) => r.body.type)).toEqual([
      'violation.raised',
      'violation.raised',
      'violation.raised',
      'violation.reviewed',
    ]);
    expect(got.at(-1)?.body.violation.status).toBe('confirmed');
    await api(sys, 'DELETE', `/v1/alert-subscriptions/${sub.id}`);
  });

  it('sends a subscription only what its filter selects and its owner may read', async () => {
    const rule = 'DF_SCOPE_RULE';
    const subs = {
      all: await subscribe(tokens.enforcement2, {
        name: 'all',
        url: `${receiver.url}?s=all`,
        filter: { ruleIds: [rule] },
      }),
      sp: await subscribe(tokens.regulator, {
        name: 'sp',
        url: `${receiver.url}?s=sp`,
        filter: { ruleIds: [rule], packs: ['sp-fretamento'] },
      }),
      other: await subscribe(tokens.regulator, {
        name: 'other',
        url: `${receiver.url}?s=other`,
        filter: { ruleIds: [rule], operatorIds: ['op-other'] },
      }),
      confirmed: await subscribe(sys.adminToken, {
        name: 'confirmed',
        url: `${receiver.url}?s=confirmed`,
        filter: { ruleIds: [rule], confidence: ['confirmed'] },
      }),
      bbox: await subscribe(sys.adminToken, {
        name: 'bbox',
        url: `${receiver.url}?s=bbox`,
        filter: { ruleIds: [rule], bbox: [-48, -16, -47.5, -15.5] },
      }),
    };
    const retiredOwner = await api<{ id: string; token: string }>(sys, 'POST', '/v1/users', {
      name: 'leaving',
      role: 'enforcement',
    });
    const retiring = await subscribe(retiredOwner.body.token, {
      name: 'retired',
      url: `${receiver.url}?s=retired`,
      filter: { ruleIds: [rule] },
    });
    expect((await api(sys, 'DELETE', `/v1/users/${retiredOwner.body.id}`)).status).toBe(200);

    const inside = await raise({ ruleId: rule, confidence: 'suspected' });
    const outside = await raise({ ruleId: rule, operatorId: 'op-other', lat: -23.55, lon: -46.63 });
    const fret = await raise({ ruleId: rule, pack: 'sp-fretamento', operatorId: 'op-other', lat: -23.55, lon: -46.63 });
    await waitFor('the unfiltered subscription to get all three', () =>
      [inside, outside, fret].every((v) => receiver.forViolation(v.id).length > 0) ? true : undefined,
    );
    // Let the others have their chance at the same events.
    await new Promise((r) => setTimeout(r, 500));
    const by = async (id: string) => (await deliveries(id)).map((d) => d.eventId);
    const eventOf = async (violationId: string) => {
      const { rows } = await sys.db.query<{ id: string }>(
        `SELECT id FROM alert_events WHERE violation_id = $1 AND type = 'violation.raised'`,
        [violationId],
      );
      return rows[0]!.id;
    };
    const [eIn, eOut, eFret] = [await eventOf(inside.id), await eventOf(outside.id), await eventOf(fret.id)];
    expect((await by(subs.all.id)).sort()).toEqual([eIn, eOut, eFret].sort());
    expect(await by(subs.sp.id)).toEqual([eFret]);
    expect((await by(subs.other.id)).sort()).toEqual([eOut, eFret].sort());
    expect((await by(subs.confirmed.id)).sort()).toEqual([eOut, eFret].sort());
    expect(await by(subs.bbox.id)).toEqual([eIn]);
    expect(await by(retiring.id)).toEqual([]);
    for (const s of Object.values(subs)) await api(sys, 'DELETE', `/v1/alert-subscriptions/${s.id}`);
  });

  it('gives an alert up after its retry window and shows the subscription failing', async () => {
    const sub = await subscribe(sys.adminToken, {
      name: 'Down',
      url: receiver.url,
      filter: { ruleIds: ['DF_DOWN_RULE'] },
    });
    receiver.script = [500, 500, 500, 500, 500, 500];
    const v = await raise({ ruleId: 'DF_DOWN_RULE' });
    await waitFor('a failed attempt', () => (receiver.forViolation(v.id).length >= 1 ? true : undefined));
    const [pending] = await waitFor('the pending entry', async () => {
      const items = await deliveries(sub.id);
      return items[0]?.attempts === 1 && items[0].lastResponseStatus !== null ? items : undefined;
    });
    expect(pending).toMatchObject({ lastResponseStatus: 500, status: 'pending' });
    expect(Date.parse(pending!.nextAttemptAt!)).toBeGreaterThan(Date.now() - 1000);
    // A day passes (ALERT_MAX_AGE_MS is 24 h here): the alert is failed at its next attempt.
    await sys.db.query(`UPDATE alert_deliveries SET pending_since = now() - interval '25 hours' WHERE id = $1`, [
      pending!.id,
    ]);
    await sys.db.query(`UPDATE alert_subscriptions SET failing_since = now() - interval '25 hours' WHERE id = $1`, [
      sub.id,
    ]);
    const [failed] = await waitFor('the failed entry', async () => {
      const items = await deliveries(sub.id);
      return items[0]?.status === 'failed' ? items : undefined;
    });
    expect(failed).toMatchObject({ status: 'failed', nextAttemptAt: null, lastResponseStatus: 500 });
    const shown = await api<Subscription>(sys, 'GET', `/v1/alert-subscriptions/${sub.id}`);
    expect(shown.body.failing).toBe(true);
    expect(Date.parse(shown.body.failingSince!)).toBeLessThan(Date.now() - 24 * 3_600_000);
    // A delivered alert makes it healthy again.
    receiver.script = [];
    await api(sys, 'POST', `/v1/alert-deliveries/${failed!.id}/redeliver`);
    await waitFor('healthy again', async () => {
      const s = await api<Subscription>(sys, 'GET', `/v1/alert-subscriptions/${sub.id}`);
      return s.body.failing === false && s.body.failingSince === null ? true : undefined;
    });
    await api(sys, 'DELETE', `/v1/alert-subscriptions/${sub.id}`);
  });

  it('with two API processes on one database, each alert is sent once', async () => {
    const second = await startSecondApi(sys, { ALERT_POLL_INTERVAL_MS: '20' });
    try {
      const sub = await subscribe(sys.adminToken, {
        name: 'Twice?',
        url: receiver.url,
        filter: { ruleIds: ['DF_TWO_PROCS'] },
      });
      const raised = [];
      for (let i = 0; i < 40; i++) raised.push(await raise({ ruleId: 'DF_TWO_PROCS' }));
      await waitFor('all 40 delivered', async () => {
        const { rows } = await sys.db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM alert_deliveries WHERE subscription_id = $1 AND status = 'delivered'`,
          [sub.id],
        );
        return rows[0]?.n === 40 ? true : undefined;
      });
      await new Promise((r) => setTimeout(r, 300));
      const ids = raised.flatMap((v) => receiver.forViolation(v.id).map((r) => r.body.id));
      expect(ids).toHaveLength(40);
      expect(new Set(ids).size).toBe(40);
      await api(sys, 'DELETE', `/v1/alert-subscriptions/${sub.id}`);
    } finally {
      await second.close();
    }
  });

  it('purges settled alerts past the retention, never a pending one', async () => {
    const sub = await subscribe(sys.adminToken, {
      name: 'Old',
      url: receiver.url,
      filter: { ruleIds: ['DF_OLD_RULE'] },
    });
    receiver.script = [500, 500, 500, 500, 500, 500, 500, 500];
    const delivered = await raise({ ruleId: 'DF_OLD_RULE' });
    await waitFor('a failed attempt', () => (receiver.forViolation(delivered.id).length >= 1 ? true : undefined));
    receiver.script = [];
    await waitFor('delivered', async () => ((await deliveries(sub.id))[0]?.status === 'delivered' ? true : undefined));
    // A second alert still pending (written as the worker would, its next attempt a day ahead),
    // and an event no subscription took.
    const pending = await raise({ ruleId: 'DF_OTHER_OLD_RULE' });
    await sys.db.query(
      `WITH e AS (UPDATE alert_events SET fanned_out_at = now() WHERE violation_id = $1 RETURNING id, seq)
       INSERT INTO alert_deliveries (id, event_id, event_seq, violation_id, subscription_id, next_attempt_at)
       SELECT 'dlv_' || md5(e.id), e.id, e.seq, $1, $2, now() + interval '1 day' FROM e`,
      [pending.id, sub.id],
    );
    const unmatched = await raise({ ruleId: 'DF_NOBODY_RULE' });
    await waitFor('the unmatched event fanned out', async () => {
      const { rows } = await sys.db.query(
        'SELECT 1 FROM alert_events WHERE violation_id = $1 AND fanned_out_at IS NOT NULL',
        [unmatched.id],
      );
      return rows.length > 0 ? true : undefined;
    });
    const ids = [delivered.id, pending.id, unmatched.id];
    await sys.db.query(`UPDATE alert_events SET created_at = now() - interval '91 days' WHERE violation_id = ANY($1)`, [
      ids,
    ]);
    expect(await purgeAlertHistory(sys.db, 90)).toBeGreaterThanOrEqual(2);
    const { rows } = await sys.db.query<{ violation_id: string }>(
      'SELECT violation_id FROM alert_events WHERE violation_id = ANY($1)',
      [ids],
    );
    expect(rows.map((r) => r.violation_id)).toEqual([pending.id]);
    expect((await deliveries(sub.id)).map((d) => d.status)).toEqual(['pending']);
    await api(sys, 'DELETE', `/v1/alert-subscriptions/${sub.id}`);
  });

  it('backs off exponentially with jitter, the first retry within 30 s', () => {
    expect(backoffMs(1, 5_000, 600_000, () => 1)).toBe(5_000);
    expect(backoffMs(1, 5_000, 600_000, () => 0)).toBe(2_500);
    expect(backoffMs(3, 5_000, 600_000, () => 1)).toBe(20_000);
    expect(backoffMs(40, 5_000, 600_000, () => 1)).toBe(600_000);
  });
});
