import { z } from 'zod';

/**
 * The viewport part of the `/live` contract (api/API.md "Live state and violations"), the one
 * source of its types: the dashboard imports them (types only) as it does the analytics schemas,
 * so this file imports nothing but zod.
 *
 * A client that sends `viewport` with an area gets, instead of `fleet`, the event `fleet-delta`:
 * every push the vehicles of its scope inside the area (plus a margin), each with only the
 * fields that changed since that socket was last sent the vehicle; the rest of its scope at a
 * slower pace (LIVE_OUTSIDE_REFRESH_MS), so counts and "offline" stay right. `null` goes back to
 * the whole scope as `fleet`.
 */

/** Client → server: the area the map shows. */
export const VIEWPORT_EVENT = 'viewport';
/** Server → client: a delta-encoded push for a socket that sent a viewport. */
export const FLEET_DELTA_EVENT = 'fleet-delta';
/**
 * Server → client, no payload: pushes meant for this socket may have been lost (its API process
 * was cut off from the other processes), so the client reads again what it lists, as after a
 * reconnection. The socket's subscription itself is intact.
 */
export const RESYNC_EVENT = 'resync';

const longitude = z.number().min(-180).max(180);
const latitude = z.number().min(-90).max(90);

/**
 * `bbox` is `[west, south, east, north]` in degrees (no antimeridian crossing: no served area
 * needs it); `zoom` is the map's zoom (0–24). A fixed shape: anything else is refused, so the
 * message is bounded whatever a client sends.
 */
export const viewportSchema = z
  .strictObject({
    bbox: z.tuple([longitude, latitude, longitude, latitude]),
    zoom: z.number().min(0).max(24),
    /** Asks for `moves` (see `movesRecordFields`): set by a client that decodes them. */
    packed: z.literal(true).optional(),
  })
  .refine(({ bbox: [west, south, east, north] }) => west <= east && south <= north, {
    message: 'bbox is [west, south, east, north] with west ≤ east and south ≤ north',
    path: ['bbox'],
  });
export type Viewport = z.infer<typeof viewportSchema>;

/**
 * A packed socket's `fleet-delta` carries, beside `rows`, `moves`: a binary attachment of
 * little-endian float64 records of these fields, one per vehicle whose only changes are these
 * (a vehicle the socket was already sent as a row, which gave its index `i`). `t` is ms after
 * the push's `base`; `speedKmh` and `headingDeg` are NaN for null. Binary rather than one JSON
 * object per vehicle: the browser decodes it without parsing or allocating per vehicle.
 */
export const movesRecordFields = ['i', 't', 'lat', 'lon', 'speedKmh', 'headingDeg'] as const;
export const movesRecordBytes = movesRecordFields.length * 8;

/** The `viewport` message: an area, or `null` to go back to the whole scope. */
export const viewportMessageSchema = viewportSchema.nullable();
export type ViewportMessage = z.infer<typeof viewportMessageSchema>;

/** The acknowledgement of a `viewport` message; `inView`: vehicles of the scope in the area (with margin) now. */
export type ViewportAck = { ok: true; inView: number } | { ok: false; code: 'INVALID_VIEWPORT'; message: string };

/**
 * The fields of a `FleetUpdate` (core/src/live.ts) a delta row carries when they changed; the
 * first row of a vehicle to a socket carries them all. `vehicleId` travels as `id`, and `ts` as
 * `t`, milliseconds after the push's `base`.
 */
export const fleetDeltaFields = [
  'plate',
  'operatorId',
  'pack',
  'serviceType',
  'lat',
  'lon',
  'speedKmh',
  'headingDeg',
  'meterState',
  'tariff',
  'passengers',
  'doorOpen',
  'ignition',
] as const;
export type FleetDeltaField = (typeof fleetDeltaFields)[number];
