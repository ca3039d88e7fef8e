import { z } from 'zod';

/**
 * The GeoJSON geometries the registry stores (RFC 7946: positions are `[lon, lat]`, polygon
 * rings are closed, the first ring is the outer boundary, the others are holes).
 */

const longitude = z.number().min(-180).max(180);
const latitude = z.number().min(-90).max(90);
export const positionSchema = z.tuple([longitude, latitude]).rest(z.number());
export type Position = z.infer<typeof positionSchema>;

const ringSchema = z
  .array(positionSchema)
  .min(4)
  .refine((ring) => {
    const first = ring[0];
    const last = ring[ring.length - 1];
    return first !== undefined && last !== undefined && first[0] === last[0] && first[1] === last[1];
  }, 'a linear ring must be closed (first position repeated last)');

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
export const areaGeometrySchema = z.discriminatedUnion('type', [polygonSchema, multiPolygonSchema]);

export type PointGeometry = z.infer<typeof pointSchema>;
export type LineStringGeometry = z.infer<typeof lineStringSchema>;
export type PolygonGeometry = z.infer<typeof polygonSchema>;
export type MultiPolygonGeometry = z.infer<typeof multiPolygonSchema>;
export type AreaGeometry = z.infer<typeof areaGeometrySchema>;

/** `[minLon, minLat, maxLon, maxLat]` */
export type BBox = readonly [number, number, number, number];

export function bboxOfPositions(positions: Iterable<Position>): BBox {
  let minLon = Number.POSITIVE_INFINITY;
  let minLat = Number.POSITIVE_INFINITY;
  let maxLon = Number.NEGATIVE_INFINITY;
  let maxLat = Number.NEGATIVE_INFINITY;
  for (const p of positions) {
    if (p[0] < minLon) minLon = p[0];
    if (p[0] > maxLon) maxLon = p[0];
    if (p[1] < minLat) minLat = p[1];
    if (p[1] > maxLat) maxLat = p[1];
  }
  return [minLon, minLat, maxLon, maxLat];
}

/** Outer rings of an area (holes cannot extend it). */
export function outerRings(geometry: AreaGeometry): Position[][] {
  if (geometry.type === 'Polygon') return geometry.coordinates[0] ? [geometry.coordinates[0]] : [];
  return geometry.coordinates.flatMap((polygon) => (polygon[0] ? [polygon[0]] : []));
}

export function bboxOfArea(geometry: AreaGeometry): BBox {
  return bboxOfPositions(outerRings(geometry).flat());
}
