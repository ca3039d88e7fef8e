import { packSchema } from '@vigia/core';
import { z } from 'zod';

/** `GET /v1/violations` filters (shared/API.md): all optional, combined with AND. */
export const violationQuerySchema = z.object({
  pack: packSchema.optional(),
  ruleId: z.string().max(64).optional(),
  vehicleId: z.string().max(64).optional(),
  operatorId: z.string().max(64).optional(),
  status: z.enum(['open', 'confirmed', 'dismissed', 'notified']).optional(),
  confidence: z.enum(['confirmed', 'suspected']).optional(),
  /** Events that started at or after this instant. */
  from: z.iso.datetime({ offset: true }).optional(),
  /** Events that started before this instant. */
  to: z.iso.datetime({ offset: true }).optional(),
  /** `minLon,minLat,maxLon,maxLat` */
  bbox: z
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
    )
    .optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  cursor: z.string().max(200).optional(),
});
export type ViolationQuery = z.infer<typeof violationQuerySchema>;

export const reviewSchema = z.object({
  decision: z.enum(['confirm', 'dismiss', 'notify']),
  reason: z.string().trim().min(3).max(2000),
});
export type Review = z.infer<typeof reviewSchema>;
