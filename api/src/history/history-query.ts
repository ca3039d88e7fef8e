import { packSchema } from '@vigia/core';
import { z } from 'zod';
import { bboxSchema } from '../violations/violation-query.js';

/** The longest period one `GET /v1/vehicles/:id/track` covers (API.md "History": at most 24 h per call). */
export const TRACK_MAX_MS = 24 * 3_600_000;
/** The period a track covers when the caller names none: the last hour, the dashboard's default. */
export const TRACK_DEFAULT_MS = 3_600_000;
/** The longest window one `GET /v1/replay` covers: a quarter of an hour (issue 11 item 4). */
export const REPLAY_MAX_MS = 15 * 60_000;
/** The largest area one replay covers, in degrees each way (about 55 km: a whole city centre). */
export const REPLAY_MAX_BBOX_DEG = 0.5;
/** A vehicle's :id in the URL: the registry's ids are short, printable text. */
export const vehicleIdSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_.:-]+$/, 'a vehicle id');

const instant = z.iso.datetime({ offset: true });

/** `GET /v1/vehicles/:id/track?from=&to=&stepS=`; from/to default to the last hour up to now. */
export const trackQuerySchema = z
  .object({
    from: instant.optional(),
    to: instant.optional(),
    /**
     * Thin the track to at most one sample per this many seconds (meter, tariff and passenger
     * changes and each line's ends are always kept); absent: every stored sample.
     */
    stepS: z.coerce.number().int().min(1).max(600).optional(),
  })
  .strict();
export type TrackQuery = z.infer<typeof trackQuerySchema>;

export type Bbox = z.infer<typeof bboxSchema>;

/** `GET /v1/replay?pack=&bbox=&from=&to=&stepS=`: bbox, from and to required. */
export const replayQuerySchema = z
  .object({
    pack: packSchema.optional(),
    bbox: bboxSchema,
    from: instant,
    to: instant,
    /** At most one position per vehicle per this many seconds (default 5: 180 per vehicle in 15 min). */
    stepS: z.coerce.number().int().min(1).max(60).default(5),
  })
  .strict();
export type ReplayQuery = z.infer<typeof replayQuerySchema>;
