import { multiPolygonSchema, polygonSchema as plainPolygonSchema } from '@vigia/rules';
import { z } from 'zod';
import { areaProblem } from './geometry-validity.js';

/**
 * GeoJSON geometries (RFC 7946) are the rule core's schemas (rules/src/geo/geojson.ts), so the
 * registry accepts exactly what the rules can read; the areas it stores must also be valid
 * (geometry-validity.ts): a ring that crosses itself makes "inside" meaningless.
 */
export { lineStringSchema, pointSchema } from '@vigia/rules';

/** Marks an issue as a geometry problem, which the registry answers with `INVALID_GEOMETRY`. */
export const GEOMETRY_ISSUE = 'INVALID_GEOMETRY';

const validArea = (
  value: z.output<typeof plainPolygonSchema> | z.output<typeof multiPolygonSchema>,
  ctx: z.RefinementCtx,
) => {
  const problem = areaProblem(value);
  if (problem)
    ctx.addIssue({ code: 'custom', message: `invalid ${value.type}: ${problem}`, params: { code: GEOMETRY_ISSUE } });
};

/** A valid Polygon (a stand's area). Still a ZodObject, so it can sit in a discriminated union. */
export const polygonSchema = plainPolygonSchema.superRefine(validArea);
/** A valid Polygon or MultiPolygon (a zone). */
export const areaSchema = z.discriminatedUnion('type', [polygonSchema, multiPolygonSchema.superRefine(validArea)]);

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
