import { packSchema } from '@vigia/core';
import { z } from 'zod';
import { plateFilterSchema } from '../registry/collection.js';

/**
 * Text from the URL or a review: no control characters. PostgreSQL refuses a NUL in `text`
 * outright (`GET /v1/violations/%00` was a 500), and no id, filter or reason holds the others.
 */
const plain = (max: number) =>
  z
    .string()
    .max(max)
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
    .regex(/^[^\u0000-\u001f\u007f]*$/, 'control characters are not allowed');

/** The `:id` of `/v1/violations/:id`. */
export const violationIdSchema = plain(128);

/** An area as `minLon,minLat,maxLon,maxLat` (the violations' filter, the area replay's window). */
export const bboxSchema = z
  .string()
  .transform((s) => s.split(',').map(Number))
  .pipe(
    z
      .tuple([
        z.number().min(-180).max(180),
        z.number().min(-90).max(90),
        z.number().min(-180).max(180),
        z.number().min(-90).max(90),
      ])
      .refine(([x1, y1, x2, y2]) => x1 <= x2 && y1 <= y2, 'bbox is minLon,minLat,maxLon,maxLat'),
  );

/**
 * `GET /v1/violations` filters (API.md, plus `plate` and `confidence`): all optional, combined
 * with AND. Declared on the route, so any other key is a 400 UNKNOWN_FILTER.
 */
export const violationQuerySchema = z.object({
  pack: packSchema.optional(),
  ruleId: plain(64).optional(),
  vehicleId: plain(64).optional(),
  /** The vehicle's plate as typed: any case, with or without the dash. */
  plate: plateFilterSchema.optional(),
  operatorId: plain(64).optional(),
  status: z.enum(['open', 'confirmed', 'dismissed', 'notified']).optional(),
  confidence: z.enum(['confirmed', 'suspected']).optional(),
  /** Events that started at or after this instant. */
  from: z.iso.datetime({ offset: true }).optional(),
  /** Events that started before this instant. */
  to: z.iso.datetime({ offset: true }).optional(),
  bbox: bboxSchema.optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  cursor: plain(200).optional(),
});
export type ViolationQuery = z.infer<typeof violationQuerySchema>;

/** The CSV export's filters: the list's, without paging (it writes every page). */
export const violationExportQuerySchema = violationQuerySchema.omit({ limit: true, cursor: true });

/**
 * The review decisions: `reopen` takes a dismissed violation back to `open` (a dismissal that
 * was a mistake, or new evidence), with its reason in the trail like every other decision.
 */
export const reviewDecisions = ['confirm', 'dismiss', 'notify', 'reopen'] as const;

export const reviewSchema = z.object({
  decision: z.enum(reviewDecisions),
  // Line breaks and tabs are a reason's paragraphs; the other control characters are refused.
  reason: z
    .string()
    .trim()
    .min(3)
    .max(2000)
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
    .regex(/^[^\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]*$/, 'control characters are not allowed'),
});
export type Review = z.infer<typeof reviewSchema>;
