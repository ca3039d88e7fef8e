import type { Database, Queryable } from '@vigia/db';
import type { AlertEventType } from './alert-channel.js';
import type { SubscriptionFilter } from './alert-filter.js';

/**
 * SQL of the alerts: subscriptions, the outbox (alert_events) and the deliveries. Nothing here
 * knows HTTP or the receivers; the worker drives the delivery state machine through it.
 */
export interface SubscriptionOwner {
  kind: 'admin' | 'user';
  userId: string | null;
}

export interface SubscriptionRow {
  id: string;
  name: string;
  url: string | null;
  email: string | null;
  secret: string;
  events: AlertEventType[];
  filter: SubscriptionFilter;
  ownerKind: 'admin' | 'user';
  ownerUserId: string | null;
  createdAt: Date;
  updatedAt: Date;
  failingSince: Date | null;
}

/** A subscription as the fan-out judges it: with its owner's current role and scope. */
export interface FanOutSubscription extends SubscriptionRow {
  ownerRole: string | null;
  ownerOperatorIds: string[];
  /** The owning user was retired: the subscription receives nothing more. */
  ownerRetired: boolean;
}

export interface DeliveryRow {
  id: string;
  eventId: string;
  type: AlertEventType;
  violationId: string;
  subscriptionId: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  createdAt: Date;
  nextAttemptAt: Date | null;
  lastAttemptAt: Date | null;
  lastResponseStatus: number | null;
  lastDurationMs: number | null;
  lastError: string | null;
  deliveredAt: Date | null;
}

export interface EventRow {
  id: string;
  seq: string;
  violationId: string;
  type: AlertEventType;
  createdAt: Date;
  payload: Record<string, unknown>;
}

/** A claimed attempt: the delivery, its event and its target. */
export interface ClaimedDelivery {
  id: string;
  attempts: number;
  pendingSince: Date;
  subscriptionId: string;
  name: string;
  url: string | null;
  email: string | null;
  secret: string;
  eventId: string;
  type: AlertEventType;
  eventCreatedAt: Date;
  payload: Record<string, unknown>;
}

const SUBSCRIPTION = `s.id, s.name, s.url, s.email, s.secret, s.events, s.filter, s.owner_kind AS "ownerKind",
  s.owner_user_id AS "ownerUserId", s.created_at AS "createdAt", s.updated_at AS "updatedAt",
  s.failing_since AS "failingSince"`;

const DELIVERY = `d.id, d.event_id AS "eventId", e.type, d.violation_id AS "violationId",
  d.subscription_id AS "subscriptionId", d.status, d.attempts, d.created_at AS "createdAt",
  CASE WHEN d.status = 'pending' THEN greatest(d.next_attempt_at, d.leased_until) END AS "nextAttemptAt",
  d.last_attempt_at AS "lastAttemptAt", d.last_response_status AS "lastResponseStatus",
  d.last_duration_ms AS "lastDurationMs", d.last_error AS "lastError", d.delivered_at AS "deliveredAt"`;

export interface SubscriptionInput {
  name: string;
  url: string | null;
  email: string | null;
  secret: string;
  events: AlertEventType[];
  filter: SubscriptionFilter;
}

export class AlertStore {
  constructor(private readonly db: Database) {}

  async createSubscription(id: string, input: SubscriptionInput, owner: SubscriptionOwner): Promise<SubscriptionRow> {
    const { rows } = await this.db.query<SubscriptionRow>(
      `INSERT INTO alert_subscriptions AS s (id, name, url, email, secret, events, filter, owner_kind, owner_user_id)
       VALUES ($1, $2, $3, $4, $5, $6::text[], $7::jsonb, $8, $9) RETURNING ${SUBSCRIPTION}`,
      [
        id,
        input.name,
        input.url,
        input.email,
        input.secret,
        input.events,
        JSON.stringify(input.filter),
        owner.kind,
        owner.userId,
      ],
    );
    return rows[0]!;
  }

  /** Subscriptions the owner may see: its own; every one when `owner` is null (the admin). */
  async listSubscriptions(owner: SubscriptionOwner | null): Promise<SubscriptionRow[]> {
    const { rows } = await this.db.query<SubscriptionRow>(
      `SELECT ${SUBSCRIPTION} FROM alert_subscriptions s
       WHERE s.deleted_at IS NULL ${owner ? 'AND s.owner_kind = $1 AND s.owner_user_id IS NOT DISTINCT FROM $2' : ''}
       ORDER BY s.created_at, s.id LIMIT 1000`,
      owner ? [owner.kind, owner.userId] : [],
    );
    return rows;
  }

  async getSubscription(id: string, owner: SubscriptionOwner | null): Promise<SubscriptionRow | undefined> {
    const { rows } = await this.db.query<SubscriptionRow>(
      `SELECT ${SUBSCRIPTION} FROM alert_subscriptions s WHERE s.id = $1 AND s.deleted_at IS NULL
       ${owner ? 'AND s.owner_kind = $2 AND s.owner_user_id IS NOT DISTINCT FROM $3' : ''}`,
      owner ? [id, owner.kind, owner.userId] : [id],
    );
    return rows[0];
  }

  async updateSubscription(id: string, next: SubscriptionInput): Promise<SubscriptionRow | undefined> {
    const { rows } = await this.db.query<SubscriptionRow>(
      `UPDATE alert_subscriptions s SET name = $2, url = $3, email = $4, secret = $5, events = $6::text[],
         filter = $7::jsonb, updated_at = now()
       WHERE s.id = $1 AND s.deleted_at IS NULL RETURNING ${SUBSCRIPTION}`,
      [id, next.name, next.url, next.email, next.secret, next.events, JSON.stringify(next.filter)],
    );
    return rows[0];
  }

  /** Deletes (retires) a subscription; its pending alerts are given up, its delivery log kept. */
  async deleteSubscription(id: string): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const { rowCount } = await tx.query(
        'UPDATE alert_subscriptions SET deleted_at = now(), updated_at = now() WHERE id = $1 AND deleted_at IS NULL',
        [id],
      );
      if (rowCount === 0) return false;
      await tx.query(
        `UPDATE alert_deliveries SET status = 'failed', last_error = 'SUBSCRIPTION_DELETED'
         WHERE subscription_id = $1 AND status = 'pending'`,
        [id],
      );
      return true;
    });
  }

  /** One subscription's deliveries, newest event first, paged by event sequence. */
  async listDeliveries(
    subscriptionId: string,
    q: { status?: string; limit: number; before?: string },
  ): Promise<{ items: DeliveryRow[]; next: string | null }> {
    const params: unknown[] = [subscriptionId];
    let where = 'd.subscription_id = $1';
    if (q.status) {
      params.push(q.status);
      where += ` AND d.status = $${params.length}`;
    }
    if (q.before) {
      params.push(q.before);
      where += ` AND d.event_seq < $${params.length}::bigint`;
    }
    params.push(q.limit + 1);
    const { rows } = await this.db.query<DeliveryRow & { seq: string }>(
      `SELECT ${DELIVERY}, d.event_seq::text AS seq FROM alert_deliveries d JOIN alert_events e ON e.id = d.event_id
       WHERE ${where} ORDER BY d.event_seq DESC LIMIT $${params.length}`,
      params,
    );
    const more = rows.length > q.limit;
    const page = more ? rows.slice(0, q.limit) : rows;
    const next = more ? (page.at(-1)?.seq ?? null) : null;
    return { items: page.map(({ seq: _seq, ...d }) => d), next };
  }

  async getDelivery(id: string): Promise<DeliveryRow | undefined> {
    const { rows } = await this.db.query<DeliveryRow>(
      `SELECT ${DELIVERY} FROM alert_deliveries d JOIN alert_events e ON e.id = d.event_id WHERE d.id = $1`,
      [id],
    );
    return rows[0];
  }

  /** Sends one alert again: pending from now, its retry window started afresh. */
  async redeliver(id: string): Promise<void> {
    await this.db.query(
      `UPDATE alert_deliveries SET status = 'pending', pending_since = now(), next_attempt_at = now(), leased_until = NULL
       WHERE id = $1`,
      [id],
    );
  }

  // ---- The worker's side ----

  purge(days: number): Promise<number> {
    return purgeAlertHistory(this.db, days);
  }

  /**
   * Fans the oldest unfanned events out into deliveries, in one transaction: the events are
   * locked (SKIP LOCKED, so processes share the work), `match` picks the subscriptions of each,
   * and the events are marked fanned out with their deliveries or not at all.
   */
  async fanOut(
    batch: number,
    match: (event: EventRow, subscriptions: FanOutSubscription[]) => FanOutSubscription[],
  ): Promise<number> {
    return this.db.transaction(async (tx) => {
      const { rows: events } = await tx.query<EventRow>(
        `SELECT id, seq::text AS seq, violation_id AS "violationId", type, created_at AS "createdAt", payload
         FROM alert_events WHERE fanned_out_at IS NULL ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED`,
        [batch],
      );
      if (events.length === 0) return 0;
      const subscriptions = await activeSubscriptions(tx);
      const pairs: { eventId: string; seq: string; violationId: string; subscriptionId: string }[] = [];
      for (const event of events) {
        for (const s of match(event, subscriptions)) {
          pairs.push({ eventId: event.id, seq: event.seq, violationId: event.violationId, subscriptionId: s.id });
        }
      }
      if (pairs.length > 0) {
        await tx.query(
          `INSERT INTO alert_deliveries (id, event_id, event_seq, violation_id, subscription_id)
           SELECT 'dlv_' || replace(gen_random_uuid()::text, '-', ''), p.e, p.q::bigint, p.v, p.s
           FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS p(e, q, v, s)
           ON CONFLICT (event_id, subscription_id) DO NOTHING`,
          [
            pairs.map((p) => p.eventId),
            pairs.map((p) => p.seq),
            pairs.map((p) => p.violationId),
            pairs.map((p) => p.subscriptionId),
          ],
        );
      }
      await tx.query('UPDATE alert_events SET fanned_out_at = now() WHERE id = ANY($1::text[])', [
        events.map((e) => e.id),
      ]);
      return events.length;
    });
  }

  /** Subscriptions with deliveries due now (the worker then claims per subscription). */
  async dueSubscriptions(): Promise<string[]> {
    const { rows } = await this.db.query<{ id: string }>(
      `SELECT DISTINCT d.subscription_id AS id FROM alert_deliveries d
       WHERE d.status = 'pending' AND d.next_attempt_at <= now() AND (d.leased_until IS NULL OR d.leased_until <= now())`,
    );
    return rows.map((r) => r.id);
  }

  /**
   * Claims up to `limit` due deliveries of one subscription for an attempt, and leases them for
   * `leaseMs` (a process killed mid-attempt loses the lease, and another process retries). A
   * delivery waits while an earlier event of the same violation is unfanned, or pending for the
   * same subscription: alerts arrive in order per (subscription, violation).
   */
  async claim(subscriptionId: string, limit: number, leaseMs: number): Promise<ClaimedDelivery[]> {
    const { rows } = await this.db.query<ClaimedDelivery>(
      // The head of each violation's queue (one pass over the subscription's pending deliveries:
      // an anti-join of the queue with itself is quadratic on a backlog), the due heads as
      // candidates, then those rows locked by primary key (`= ANY(ARRAY(...))` keeps the plan an
      // index lookup even before the table has statistics). The lease and status are checked
      // again on the locked row, so a delivery another process has just claimed is not taken twice.
      `WITH heads AS (
         SELECT DISTINCT ON (q.violation_id) q.id, q.violation_id, q.event_seq, q.next_attempt_at, q.leased_until
         FROM alert_deliveries q WHERE q.subscription_id = $1 AND q.status = 'pending'
         ORDER BY q.violation_id, q.event_seq
       ), due AS (
         SELECT h.id FROM heads h
         WHERE h.next_attempt_at <= now() AND (h.leased_until IS NULL OR h.leased_until <= now())
           AND NOT EXISTS (SELECT 1 FROM alert_events u WHERE u.violation_id = h.violation_id
             AND u.fanned_out_at IS NULL AND u.seq < h.event_seq)
         ORDER BY h.event_seq LIMIT $2 + 16
       ), picked AS (
         SELECT d.id FROM alert_deliveries d
         WHERE d.id = ANY(ARRAY(SELECT id FROM due)) AND d.status = 'pending' AND d.next_attempt_at <= now()
           AND (d.leased_until IS NULL OR d.leased_until <= now())
         ORDER BY d.event_seq LIMIT $2 FOR UPDATE SKIP LOCKED
       )
       UPDATE alert_deliveries d SET attempts = d.attempts + 1, last_attempt_at = now(),
         leased_until = now() + ($3::int * interval '1 millisecond')
       FROM picked, alert_events e, alert_subscriptions s
       WHERE d.id = picked.id AND e.id = d.event_id AND s.id = d.subscription_id
       RETURNING d.id, d.attempts, d.pending_since AS "pendingSince", s.id AS "subscriptionId", s.name, s.url,
         s.email, s.secret, e.id AS "eventId", e.type, e.created_at AS "eventCreatedAt", e.payload`,
      [subscriptionId, limit, leaseMs],
    );
    return rows;
  }

  /** Records a delivered attempt, and the subscription as healthy again. */
  async markDelivered(id: string, subscriptionId: string, status: number | null, durationMs: number): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.query(
        `UPDATE alert_deliveries SET status = 'delivered', delivered_at = now(), leased_until = NULL,
           last_response_status = $2, last_duration_ms = $3, last_error = NULL
         WHERE id = $1 AND status = 'pending'`,
        [id, status, Math.round(durationMs)],
      );
      await tx.query(
        'UPDATE alert_subscriptions SET failing_since = NULL WHERE id = $1 AND failing_since IS NOT NULL',
        [subscriptionId],
      );
    });
  }

  /**
   * Records a failed attempt: retried at `retryAt`, or `failed` when `giveUp` (its retry window
   * is over). The subscription is failing since its first failure after its last delivery.
   */
  async markAttemptFailed(
    id: string,
    subscriptionId: string,
    result: { status: number | null; durationMs: number; error: string },
    next: { giveUp: boolean; retryAt: Date },
  ): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.query(
        `UPDATE alert_deliveries SET status = CASE WHEN $5 THEN 'failed' ELSE 'pending' END, next_attempt_at = $6,
           leased_until = NULL, last_response_status = $2, last_duration_ms = $3, last_error = $4
         WHERE id = $1 AND status = 'pending'`,
        [id, result.status, Math.round(result.durationMs), result.error, next.giveUp, next.retryAt.toISOString()],
      );
      await tx.query('UPDATE alert_subscriptions SET failing_since = now() WHERE id = $1 AND failing_since IS NULL', [
        subscriptionId,
      ]);
    });
  }
}

/**
 * Drops settled history older than `days`: delivered and failed deliveries, then the events left
 * without a delivery. In bounded batches, so a first purge of a large backlog holds no long lock.
 */
export async function purgeAlertHistory(db: Queryable, days: number, batch = 5_000): Promise<number> {
  let removed = 0;
  for (;;) {
    const { rowCount: deliveries } = await db.query(
      `DELETE FROM alert_deliveries WHERE id IN (
         SELECT d.id FROM alert_deliveries d JOIN alert_events e ON e.id = d.event_id
         WHERE d.status <> 'pending' AND e.created_at < now() - ($1::int * interval '1 day') LIMIT $2)`,
      [days, batch],
    );
    const { rowCount: events } = await db.query(
      `DELETE FROM alert_events WHERE id IN (
         SELECT e.id FROM alert_events e
         WHERE e.fanned_out_at IS NOT NULL AND e.created_at < now() - ($1::int * interval '1 day')
           AND NOT EXISTS (SELECT 1 FROM alert_deliveries d WHERE d.event_id = e.id) LIMIT $2)`,
      [days, batch],
    );
    removed += events;
    if (deliveries < batch && events < batch) return removed;
  }
}

async function activeSubscriptions(tx: Queryable): Promise<FanOutSubscription[]> {
  const { rows } = await tx.query<FanOutSubscription>(
    `SELECT ${SUBSCRIPTION}, u.role AS "ownerRole", coalesce(u.operator_ids, '{}') AS "ownerOperatorIds",
       (s.owner_kind = 'user' AND (u.id IS NULL OR u.retired_at IS NOT NULL)) AS "ownerRetired"
     FROM alert_subscriptions s LEFT JOIN users u ON u.id = s.owner_user_id
     WHERE s.deleted_at IS NULL`,
  );
  return rows;
}
