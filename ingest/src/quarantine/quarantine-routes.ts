import { AppError } from '@vigia/core';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { QuarantineCursor, QuarantineRow, QuarantineStore } from './quarantine-store.js';

/**
 * `GET /v1/quarantine`: the records the device gateways acknowledged but refused to store, newest
 * first, for an administrator to see what a fleet's broken trackers send. Admin only: the raw
 * bytes are whatever a device put on the wire. Keyset paging as the registry's (`limit`,
 * `cursor` → `next`); `raw` as base64 (and its length), `decoded` as the gateway read it.
 */

const time = z.union([z.iso.datetime({ offset: true }), z.coerce.number().int().min(0).max(8.64e15)]).transform((v) => {
  const d = new Date(v);
  if (Number.isNaN(d.getTime())) throw new AppError('INVALID_QUERY', 'not a time', 400);
  return d;
});

const querySchema = z.object({
  protocol: z.string().trim().min(1).max(32).optional(),
  deviceIdentifier: z.string().trim().min(1).max(64).optional(),
  code: z.string().trim().min(1).max(64).optional(),
  from: time.optional(),
  to: time.optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  cursor: z.string().max(200).optional(),
});

const cursorSchema = z.object({ t: z.iso.datetime(), id: z.string().regex(/^\d{1,19}$/) });

function encodeCursor(c: QuarantineCursor): string {
  return Buffer.from(JSON.stringify({ t: c.receivedAt.toISOString(), id: c.id })).toString('base64url');
}

function decodeCursor(s: string): QuarantineCursor {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(s, 'base64url').toString());
  } catch {
    throw new AppError('INVALID_CURSOR', 'cursor is not one this endpoint returned', 400);
  }
  const c = cursorSchema.safeParse(parsed);
  if (!c.success) throw new AppError('INVALID_CURSOR', 'cursor is not one this endpoint returned', 400);
  return { receivedAt: new Date(c.data.t), id: c.data.id };
}

function present(r: QuarantineRow) {
  return {
    id: r.id,
    receivedAt: r.receivedAt.toISOString(),
    protocol: r.protocol,
    transport: r.transport,
    deviceIdentifier: r.deviceIdentifier,
    deviceId: r.deviceId,
    code: r.code,
    message: r.message,
    rawBase64: r.raw.toString('base64'),
    rawBytes: r.raw.length,
    decoded: r.decoded,
  };
}

export async function registerQuarantineRoutes(app: FastifyInstance, deps: { store: QuarantineStore }): Promise<void> {
  app.get('/v1/quarantine', { config: { access: ['admin'], query: querySchema } }, async (req) => {
    const q = querySchema.parse(req.query);
    const { items, next } = await deps.store.list(
      { protocol: q.protocol, deviceIdentifier: q.deviceIdentifier, code: q.code, from: q.from, to: q.to },
      { limit: q.limit, cursor: q.cursor ? decodeCursor(q.cursor) : undefined },
    );
    return { items: items.map(present), next: next ? encodeCursor(next) : null };
  });
}
