import { z } from 'zod';

/** GeoJSON geometries (RFC 7946): positions are [longitude, latitude], rings closed. */
export const positionSchema = z.tuple([z.number().min(-180).max(180), z.number().min(-90).max(90)]).rest(z.number());

const ringSchema = z
  .array(positionSchema)
  .min(4)
  .refine((ring) => {
    const first = ring[0];
    const last = ring.at(-1);
    return first !== undefined && last !== undefined && first[0] === last[0] && first[1] === last[1];
  }, 'a linear ring must end where it starts');

export const pointSchema = z.object({ type: z.literal('Point'), coordinates: positionSchema });
export const lineStringSchema = z.object({
  type: z.literal('LineString'),
  coordinates: z.array(positionSchema).min(2),
});
export const polygonSchema = z.object({ type: z.literal('Polygon'), coordinates: z.array(ringSchema).min(1) });
export const multiPolygonSchema = z.object({
  type: z.literal('MultiPolygon'),
  coordinates: z.array(z.array(ringSchema).min(1)).min(1),
});

export const areaSchema = z.discriminatedUnion('type', [polygonSchema, multiPolygonSchema]);

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
