import { z } from 'zod';

/**
 * GeoJSON geometries (RFC 7946) are the rule core's schemas (rules/src/geo/geojson.ts), so the
 * registry accepts exactly what the rules can read.
 */
export { areaGeometrySchema as areaSchema, lineStringSchema, pointSchema, polygonSchema } from '@vigia/rules';

/** A FeatureCollection as imported: each feature's properties become the record's fields. */
export const featureCollectionSchema = z.object({
  type: z.literal('FeatureCollection'),
  features: z
    .array(
      z.object({
        type: z.literal('Feature'),
        id: z.union([z.string(), z.number()]).optional(),
        geometry: z.unknown(),
        properties: z.record(z.string(), z.unknown()).nullable().default({}),
      }),
    )
    .max(50_000),
});
