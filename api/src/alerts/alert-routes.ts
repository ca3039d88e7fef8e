import { randomBytes } from 'node:crypto';
import { AppError, type Caller, type Principal, principalOf, withQuery } from '@vigia/core';
import type { FastifyInstance } from 'fastify';
import {
  alertIdSchema,
  createSubscriptionSchema,
  deliveryQuerySchema,
  patchSubscriptionSchema,
} from './alert-schemas.js';
import type { AlertStore, DeliveryRow, SubscriptionOwner, SubscriptionRow } from './alert-store.js';

/** Who may own subscriptions: roles that read every operator's violations (API.md). */
const owners = { config: { access: ['admin', 'regulator', 'enforcement'] as Caller[] } };

export interface AlertRouteDeps {
  store: AlertStore;
  /** Whether an e-mail channel is configured (SMTP_URL); without it `email` targets are refused. */
  emailEnabled: boolean;
  /** ALERT_MAX_AGE_MS: a subscription whose alerts have failed this long is shown failing. */
  maxAgeMs: number;
}

/** The caller as an owner; null for the admin, who sees and manages every subscription. */
function ownerOf(principal: Principal): { owner: SubscriptionOwner; sees: SubscriptionOwner | null } {
  if (principal.kind === 'admin') return { owner: { kind: 'admin', userId: null }, sees: null };
  if (principal.kind === 'user' && (principal.role === 'regulator' || principal.role === 'enforcement')) {
    const owner: SubscriptionOwner = { kind: 'user', userId: principal.userId };
    return { owner, sees: owner };
  }
  throw new AppError('FORBIDDEN', 'Only admins, regulators and enforcement officers own alert subscriptions', 403);
}

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

function present(row: SubscriptionRow, maxAgeMs: number) {
  const failingSince = row.failingSince ? new Date(row.failingSince) : null;
  return {
    id: row.id,
    name: row.name,
    url: row.url,
    email: row.email,
    events: row.events,
    filter: row.filter,
    owner: { kind: row.ownerKind, userId: row.ownerUserId },
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
    // Failing: its alerts have failed, with nothing delivered since, for the whole retry window.
    failing: failingSince !== null && Date.now() - failingSince.getTime() >= maxAgeMs,
    failingSince: iso(failingSince),
  };
}

/** A delivery as logged: status codes and timings, never what the receiver answered. */
function presentDelivery(d: DeliveryRow) {
  return {
    id: d.id,
    eventId: d.eventId,
    type: d.type,
    violationId: d.violationId,
    subscriptionId: d.subscriptionId,
    status: d.status,
    attempts: d.attempts,
    lastResponseStatus: d.lastResponseStatus,
    lastDurationMs: d.lastDurationMs,
    lastError: d.lastError,
    nextAttemptAt: iso(d.nextAttemptAt),
    lastAttemptAt: iso(d.lastAttemptAt),
    createdAt: iso(d.createdAt),
    deliveredAt: iso(d.deliveredAt),
  };
}

const newId = (prefix: string) => `${prefix}_${randomBytes(16).toString('hex')}`;

export async function registerAlertRoutes(app: FastifyInstance, deps: AlertRouteDeps): Promise<void> {
  const { store, maxAgeMs } = deps;
  const idParam = (req: { params: unknown }) => {
    const parsed = alertIdSchema.safeParse((req.params as { id?: unknown }).id);
    if (!parsed.success) throw new AppError('NOT_FOUND', 'No such alert subscription or delivery', 404);
    return parsed.data;
  };
  const visible = async (principal: Principal, id: string) => {
    const row = await store.getSubscription(id, ownerOf(principal).sees);
    if (!row) throw new AppError('NOT_FOUND', `No alert subscription '${id}'`, 404);
    return row;
  };
  const requireEmail = (email: string | null | undefined) => {
    if (email && !deps.emailEnabled) {
      throw new AppError('EMAIL_NOT_CONFIGURED', 'E-mail alerts need SMTP_URL to be configured; give a url', 400);
    }
  };

  app.post('/v1/alert-subscriptions', owners, async (req, reply) => {
    const { owner } = ownerOf(principalOf(req));
    const body = createSubscriptionSchema.parse(req.body);
    requireEmail(body.email);
    const secret = body.secret ?? `whsec_${randomBytes(24).toString('base64url')}`;
    const row = await store.createSubscription(
      newId('sub'),
      {
        name: body.name,
        url: body.url ?? null,
        email: body.email ?? null,
        secret,
        events: body.events,
        filter: body.filter,
      },
      owner,
    );
    // The secret is shown this once; the receiver keeps it to check signatures.
    return reply.code(201).send({ ...present(row, maxAgeMs), secret });
  });

  app.get('/v1/alert-subscriptions', owners, async (req) => {
    const rows = await store.listSubscriptions(ownerOf(principalOf(req)).sees);
    return { items: rows.map((r) => present(r, maxAgeMs)), next: null };
  });

  app.get('/v1/alert-subscriptions/:id', owners, async (req) => {
    return present(await visible(principalOf(req), idParam(req)), maxAgeMs);
  });

  app.get('/v1/alert-subscriptions/:id/deliveries', withQuery(owners, deliveryQuerySchema), async (req) => {
    const id = idParam(req);
    await visible(principalOf(req), id);
    const q = deliveryQuerySchema.parse(req.query);
    const page = await store.listDeliveries(id, { status: q.status, limit: q.limit, before: q.cursor });
    return { items: page.items.map(presentDelivery), next: page.next };
  });

  app.patch('/v1/alert-subscriptions/:id', owners, async (req) => {
    const principal = principalOf(req);
    const id = idParam(req);
    const patch = patchSubscriptionSchema.parse(req.body);
    const current = await visible(principal, id);
    requireEmail(patch.email);
    // A target is a url or an email: giving one replaces the other.
    const target =
      patch.url !== undefined
        ? { url: patch.url, email: null }
        : patch.email !== undefined
          ? { url: null, email: patch.email }
          : { url: current.url, email: current.email };
    const row = await store.updateSubscription(id, {
      name: patch.name ?? current.name,
      ...target,
      secret: patch.secret ?? current.secret,
      events: patch.events ?? current.events,
      filter: patch.filter ?? current.filter,
    });
    if (!row) throw new AppError('NOT_FOUND', `No alert subscription '${id}'`, 404);
    return present(row, maxAgeMs);
  });

  // As the registry's DELETE: 200 with the record as it was; its pending alerts are given up.
  app.delete('/v1/alert-subscriptions/:id', owners, async (req) => {
    const id = idParam(req);
    const current = await visible(principalOf(req), id);
    if (!(await store.deleteSubscription(id))) throw new AppError('NOT_FOUND', `No alert subscription '${id}'`, 404);
    return present(current, maxAgeMs);
  });

  app.post('/v1/alert-deliveries/:id/redeliver', owners, async (req, reply) => {
    const principal = principalOf(req);
    const id = idParam(req);
    const delivery = await store.getDelivery(id);
    if (!delivery) throw new AppError('NOT_FOUND', `No alert delivery '${id}'`, 404);
    // Another owner's delivery does not exist for this caller; a deleted subscription sends nothing.
    await visible(principal, delivery.subscriptionId);
    await store.redeliver(id);
    const updated = await store.getDelivery(id);
    return reply.code(202).send(presentDelivery(updated ?? delivery));
  });
}
