import { type Caller, principalOf, withQuery } from '@vigia/core';
import type { FastifyInstance } from 'fastify';
import {
  assignSchema,
  bookingQuerySchema,
  cancelSchema,
  candidateQuerySchema,
  createBookingSchema,
  idSchema,
  offerQuerySchema,
} from './booking-schemas.js';
import type { BookingService } from './booking-service.js';

/**
 * The HTTP side of dispatch (API.md "Radio-taxi dispatch"): bookings for the admin and the
 * dispatchers of their operators, read also by regulators and enforcement (they supervise radio
 * dispatch); offers for the taxi's own devices, and for whoever may answer on its behalf.
 */
const take = { config: { access: ['admin', 'dispatcher'] as Caller[] } };
const read = { config: { access: ['admin', 'regulator', 'enforcement', 'dispatcher'] as Caller[] } };
const answer = { config: { access: ['admin', 'dispatcher', 'device'] as Caller[] } };

const idOf = (req: { params: unknown }) => idSchema.parse((req.params as { id: string }).id);

export async function registerBookingRoutes(app: FastifyInstance, service: BookingService): Promise<void> {
  app.post('/v1/bookings', take, async (req, reply) => {
    const booking = await service.create(principalOf(req), createBookingSchema.parse(req.body));
    return reply.code(201).send(booking);
  });

  app.get('/v1/bookings', withQuery(read, bookingQuerySchema), async (req) =>
    service.list(principalOf(req), bookingQuerySchema.parse(req.query)),
  );

  app.get('/v1/bookings/:id', read, async (req) => service.get(principalOf(req), idOf(req)));

  // Who may read the booking may see whom it would go to (README.md "Who may do what").
  app.get('/v1/bookings/:id/candidates', withQuery(read, candidateQuerySchema), async (req) => {
    const principal = principalOf(req);
    const { limit } = candidateQuerySchema.parse(req.query);
    return service.candidates(principal, idOf(req), limit);
  });

  app.post('/v1/bookings/:id/cancel', take, async (req) => {
    const principal = principalOf(req);
    const { reason } = cancelSchema.parse(req.body ?? undefined);
    return service.cancel(principal, idOf(req), reason ?? null);
  });

  app.post('/v1/bookings/:id/assign', take, async (req) => {
    const principal = principalOf(req);
    const { vehicleId } = assignSchema.parse(req.body);
    return service.assign(principal, idOf(req), vehicleId);
  });

  app.get('/v1/offers', withQuery(answer, offerQuerySchema), async (req) => ({
    items: await service.offers(principalOf(req), offerQuerySchema.parse(req.query)),
  }));

  app.post('/v1/offers/:id/accept', answer, async (req) => service.answer(principalOf(req), idOf(req), 'accepted'));

  app.post('/v1/offers/:id/decline', answer, async (req) => service.answer(principalOf(req), idOf(req), 'declined'));
}
