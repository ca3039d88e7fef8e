import { AppError, type Caller } from '@vigia/core';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { DbStandQueues } from './stand-queues.js';

/**
 * Every user role reads a stand's queue, unscoped: it shows which taxis wait at a public stand
 * and in which order, what anyone standing there sees (plates included), and who is ahead is
 * what makes the order checkable. Devices do not: the driver page has no use for it. See STANDS.md.
 */
const read = { config: { access: ['admin', 'regulator', 'enforcement', 'dispatcher', 'operator'] as Caller[] } };

const paramsSchema = z.object({ id: z.string().min(1).max(200) });

/**
 * `GET /v1/stands/:id/queue` → `{ items: [{ vehicleId, plate, enteredAt, waitedS }] }`: the
 * stand's legal queue as the live rules see it, first in line first (API.md "Radio-taxi
 * dispatch"); 404 STAND_NOT_FOUND for a stand never registered, no one in line at a retired one.
 */
export async function registerStandQueueRoutes(app: FastifyInstance, deps: { queues: DbStandQueues }): Promise<void> {
  app.get('/v1/stands/:id/queue', read, async (req) => {
    const { id } = paramsSchema.parse(req.params);
    const [stand, items] = await Promise.all([deps.queues.stand(id), deps.queues.queue(id)]);
    if (!stand) throw new AppError('STAND_NOT_FOUND', `No stand ${id}`, 404);
    // A retired stand has no queue: the rules stopped following it, so its last stored one is stale.
    return { items: stand.retired ? [] : items };
  });
}
