import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openPostgres } from '@vigia/db';
import { createScratchDatabase } from '@vigia/db/testing';
import { describe, expect, it } from 'vitest';
import { AlertReceiver, type ReceivedAlert } from '../src/bench/alert-receiver.js';
import { backWithinCapacity, overCapacity, registerFleet } from '../src/bench/over-capacity-fleet.js';
import { type ChildSystem, ENTRY, spawnSystem } from './processes.js';
import { api } from './support.js';

const ADMIN_TOKEN = 'alerts-faults-admin-token-0042';
const VIOLATIONS = 1000;
const DOWN_MS = 60_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(
  what: string,
  probe: () => boolean | Promise<boolean>,
  timeoutMs: number,
  state: () => string = () => '',
): Promise<void> {
  const start = Date.now();
  while (!(await probe())) {
    if (Date.now() - start > timeoutMs)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} ${state()}`);
    await sleep(200);
  }
}

/**
 * Issue 9 acceptance, "never lost": 1 000 violations raised (and ended: 2 000 events) through the
 * real telemetry path while the receiver is down for 60 s; once it is back, the whole system
 * process is SIGKILLed in the middle of the deliveries and started again. Every event arrives
 * (every outbox row, and a raised and an updated for each violation), none more than twice, and
 * per violation never an update before its raise has been answered 2xx. Each wait is bounded
 * below the test's timeout, so a slow drain fails with the counts and the processes are stopped.
 */
describe('alerts under faults', () => {
  it('delivers every alert of 1 000 violations across a 60 s receiver outage and a SIGKILL, at most twice, in order per violation', async () => {
    const scratch = await createScratchDatabase();
    const dataDir = await mkdtemp(join(tmpdir(), 'vigia-alert-kill-'));
    const receiver = await AlertReceiver.start();
    const env = {
      DATA_DIR: dataDir,
      ADMIN_TOKEN,
      DEMO: 'off',
      DATABASE_URL: scratch.url,
      // Retries a few seconds apart at most, so the backlog drains within the test once the
      // receiver is back (the defaults back off to minutes, as they should in production).
      ALERT_TIMEOUT_MS: '2000',
      ALERT_BACKOFF_BASE_MS: '500',
      ALERT_BACKOFF_MAX_MS: '3000',
      ALERT_POLL_INTERVAL_MS: '100',
      // Sixteen attempts in flight to the receiver (default 4): the backlog of 2 000 drains within
      // the test (in 14-17 s after the outage on this machine, where eight took 28 s), and more
      // attempts at once make the order per violation harder to keep.
      ALERT_CONCURRENCY_PER_RECEIVER: '16',
    };
    let running: ChildSystem | undefined;
    try {
      running = await spawnSystem(ENTRY.all, env);
      const client = { url: running.url, adminToken: ADMIN_TOKEN };
      const secret = 'faults-webhook-secret-0123456789abcdef';
      const sub = await api<{ id: string }>(client, 'POST', '/v1/alert-subscriptions', {
        name: 'agência',
        url: receiver.url('agency', secret),
        secret,
        events: ['violation.raised', 'violation.updated'],
      });
      expect(sub.status, JSON.stringify(sub.body)).toBe(201);

      await receiver.down();
      const downAt = Date.now();
      const fleet = await registerFleet(client, VIOLATIONS, Math.random().toString(36).slice(2, 8));
      const t0 = Date.now() - 3_600_000;
      for (let i = 0; i < fleet.length; i += 100) await overCapacity(client, fleet.slice(i, i + 100), t0);
      for (let i = 0; i < fleet.length; i += 100) await backWithinCapacity(client, fleet.slice(i, i + 100), t0);
      const violationIds = new Set<string>();
      await until(
        'the 1 000 violations',
        async () => {
          const res = await api<{ items: { id: string; endedAt: string | null }[] }>(
            client,
            'GET',
            '/v1/violations?ruleId=DF_OVER_CAPACITY&limit=1000',
          );
          for (const v of res.body.items) if (v.endedAt) violationIds.add(v.id);
          return violationIds.size >= VIOLATIONS;
        },
        // Bounds, not targets: a loaded CI machine takes several times a quiet one's few seconds.
        90_000,
      );
      const raisedIn = Date.now() - downAt;
      await sleep(Math.max(0, DOWN_MS - raisedIn));
      await receiver.up();
      const upAt = Date.now();

      // Mid-delivery: a quarter of the backlog through, the process dies without a word.
      const counts = () => `(${receiver.requests.length} requests, ${receiver.delivered().length} delivered)`;
      await until('a quarter of the alerts', () => receiver.delivered().length >= VIOLATIONS / 2, 90_000, counts);
      running.child.kill('SIGKILL');
      await running.exited;
      const deliveredAtKill = receiver.delivered().length;
      running = await spawnSystem(ENTRY.all, env);

      const db = openPostgres(scratch.url, 1);
      let events: { id: string; violation_id: string; type: string }[];
      try {
        ({ rows: events } = await db.query<{ id: string; violation_id: string; type: string }>(
          'SELECT id, violation_id, type FROM alert_events',
        ));
      } finally {
        await db.close();
      }
      const deliveredIds = () => new Set(receiver.delivered().map((r) => r.eventId));
      await until(
        'every event delivered',
        () => {
          const got = deliveredIds();
          return events.every((e) => got.has(e.id));
        },
        150_000,
        counts,
      );
      const drainedIn = Date.now() - upAt;

      const delivered = receiver.delivered();
      const perEvent = new Map<string, number>();
      for (const r of delivered) perEvent.set(r.eventId, (perEvent.get(r.eventId) ?? 0) + 1);
      const twice = [...perEvent.values()].filter((n) => n === 2).length;
      console.log(
        `alerts under faults: ${violationIds.size} violations, ${events.length} events raised in ${raisedIn} ms while the receiver was down; ` +
          `${deliveredAtKill} delivered before the SIGKILL; all delivered ${drainedIn} ms after the receiver came back; ` +
          `${twice} delivered twice; ${receiver.requests.length} requests in all`,
      );

      expect(receiver.requests.every((r) => r.signatureValid)).toBe(true);
      expect(events.length).toBeGreaterThanOrEqual(2 * VIOLATIONS);
      expect(Math.max(...perEvent.values())).toBeLessThanOrEqual(2);
      // Every violation's raise and end arrived, whatever the outbox holds.
      const byViolation = new Map<string, ReceivedAlert[]>();
      for (const r of receiver.requests) {
        const list = byViolation.get(r.violationId) ?? [];
        list.push(r);
        byViolation.set(r.violationId, list);
      }
      for (const id of violationIds) {
        const got = byViolation.get(id) ?? [];
        const ok = got.filter((r) => r.answered >= 200 && r.answered < 300);
        expect(ok.some((r) => r.type === 'violation.raised')).toBe(true);
        expect(ok.some((r) => r.type === 'violation.updated')).toBe(true);
        // In order: no update is even attempted before the raise was answered 2xx, and the
        // events are first delivered in the order they were written.
        const firstRaised = got.findIndex(
          (r) => r.type === 'violation.raised' && r.answered >= 200 && r.answered < 300,
        );
        const firstUpdate = got.findIndex((r) => r.type === 'violation.updated');
        expect(firstUpdate).toBeGreaterThan(firstRaised);
        const firsts = ok.filter((r, i) => ok.findIndex((x) => x.eventId === r.eventId) === i);
        const created = firsts.map((r) => Date.parse(r.body.createdAt));
        expect(created).toEqual([...created].sort((a, b) => a - b));
      }
    } finally {
      running?.child.kill('SIGTERM');
      await running?.exited;
      await receiver.close();
      await scratch.drop();
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 480_000);
});
