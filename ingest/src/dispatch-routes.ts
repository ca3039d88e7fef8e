import { AppError, principalOf, type TokenResolver } from '@vigia/core';
import type { Database } from '@vigia/db';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { RulePipeline } from './rules/rule-pipeline.js';

/**
 * `POST /v1/dispatches`: radio-taxi dispatch systems report which radio operator sent which
 * taxi to a ride (Belém Art. 42–44). Stored, then judged by BEL_UNAUTHORIZED_RADIO. A
 * dispatcher's token may only report for the radio operators it is scoped to.
 */
const dispatchSchema = z.object({
  id: z.string().trim().min(1).max(64).optional(),
  ts: z.union([z.iso.datetime({ offset: true }), z.number().int().min(0)]).transform((v) => new Date(v)),
  radioOperatorId: z.string().trim().min(1).max(64),
  vehicleId: z.string().trim().min(1).max(64),
  lat: z.number().min(-90).max(90).nullish(),
  lon: z.number().min(-180).max(180).nullish(),
  tripId: z.string().max(64).nullish(),
});
const bodySchema = z.union([dispatchSchema, z.array(dispatchSchema).min(1).max(10_000)]);

export async function registerDispatchRoutes(
  app: FastifyInstance,
  deps: { db: Database; rules: RulePipeline; resolveToken: TokenResolver },
): Promise<void> {
  app.post('/v1/dispatches', { config: { access: ['admin', 'dispatcher'] } }, async (req, reply) => {
    const principal = principalOf(req);
    const parsed = bodySchema.parse(req.body);
    const items = Array.isArray(parsed) ? parsed : [parsed];
    if (principal.kind === 'device') throw new AppError('FORBIDDEN', 'Devices may not report dispatches', 403);
    if (principal.kind === 'user') {
      const foreign = items.find(
        (d) => principal.role !== 'dispatcher' || !principal.operatorIds.includes(d.radioOperatorId),
      );
      if (foreign) {
        throw new AppError('FORBIDDEN', `This token may not report dispatches of '${foreign.radioOperatorId}'`, 403);
      }
    }
    const rows = items.map((d, i) => ({
      id: d.id ?? `dsp_${d.radioOperatorId}_${d.ts.getTime()}_${d.vehicleId}_${i}`,
      ts: d.ts.toISOString(),
      radio_operator_id: d.radioOperatorId,
      vehicle_id: d.vehicleId,
      pickup_lat: d.lat ?? null,
      pickup_lon: d.lon ?? null,
      reference: d.tripId ?? null,
    }));
    const { rows: inserted } = await deps.db.query<{ id: string }>(
      `INSERT INTO dispatches (id, ts, radio_operator_id, vehicle_id, pickup_lat, pickup_lon, reference)
       SELECT id, ts, radio_operator_id, vehicle_id, pickup_lat, pickup_lon, reference
       FROM jsonb_populate_recordset(NULL::dispatches, $1::jsonb)
       ON CONFLICT (id) DO NOTHING RETURNING id`,
      [JSON.stringify(rows)],
    );
    // A re-sent dispatch (same id) is stored and judged once.
    const fresh = new Set(inserted.map((r) => r.id));
    const judged = rows.flatMap((row, i) => {
      const d = items[i];
      return d && fresh.has(row.id)
        ? [
            {
              id: row.id,
              ts: d.ts,
              radioOperatorId: d.radioOperatorId,
              vehicleId: d.vehicleId,
              lat: d.lat ?? null,
              lon: d.lon ?? null,
              tripId: d.tripId ?? null,
            },
          ]
        : [];
    });
    await deps.rules.onDispatches(judged);
    return reply.code(200).send({ accepted: judged.length, duplicates: items.length - judged.length });
  });
}
