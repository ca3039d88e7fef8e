import { type Caller, withQuery } from '@vigia/core';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { RegistryPlaces } from './registry-places.js';
import type { StreetIndex } from './street-index.js';

/**
 * Every user role asks where a point is: the street and the registered place are public
 * knowledge (the map shows both to all of them), and each role's popups need it. Devices do not.
 */
const read = { config: { access: ['admin', 'regulator', 'enforcement', 'dispatcher', 'operator'] as Caller[] } };

/** A decimal number as text: no exponent, no blanks, nothing `Number('')` would read as 0. */
const decimal = z
  .string()
  .regex(/^-?\d{1,3}(\.\d{1,12})?$/, 'a decimal number of degrees')
  .transform(Number);

export const reverseQuerySchema = z
  .object({
    lat: decimal.pipe(z.number().min(-90).max(90)),
    lon: decimal.pipe(z.number().min(-180).max(180)),
  })
  .strict();

/**
 * `GET /v1/places/reverse?lat=&lon=` → `{ street: { name, class, distanceM } | null,
 * place: { kind, id, name, distanceM } | null }` (README.md): the nearest street of the offline
 * map's data within `streetMaxM`, and the registered stop, stand or zone at the point.
 */
export async function registerPlaceRoutes(
  app: FastifyInstance,
  deps: { streets: StreetIndex; places: RegistryPlaces; streetMaxM: number },
): Promise<void> {
  app.get('/v1/places/reverse', withQuery(read, reverseQuerySchema), async (req) => {
    const { lat, lon } = reverseQuerySchema.parse(req.query);
    const street = deps.streets.nearest(lat, lon, deps.streetMaxM);
    const place = await deps.places.at(lat, lon);
    return { street, place };
  });
}
