import { readFileSync } from 'node:fs';
import { packSchema } from '@vigia/core';
import { z } from 'zod';

/**
 * The reference data the embedded demo registers beside its simulated fleet, so that every rule
 * family has what it judges against and fines carry a BRL amount: unit values, holidays, zones
 * and regular-service stops. The data are files in `devices/data/demo-registry/` (their sources
 * in its README), read here and checked with zod; each record keeps its `source`, which the API
 * does not take. Some figures are placeholders marked `demoValue`: they are registered only by
 * the demo (`startSimulator({ demoReferenceData: true })`), never by a simulator pointed at a
 * real registry.
 */

const DATA_DIR = new URL('../../data/demo-registry/', import.meta.url);

const source = z.string().min(1);

const unitValueSchema = z.object({
  id: z.string().min(1),
  unit: z.enum(['ORTN', 'UPDF', 'UT', 'IPCA-E']),
  valueBrl: z.number().positive(),
  validFrom: z.iso.date(),
  demoValue: z.boolean(),
  source,
});

const holidaySchema = z.object({
  id: z.string().min(1),
  pack: packSchema,
  date: z.iso.date(),
  name: z.string().min(1),
  kind: z.enum(['add', 'remove']),
  source,
});

const position = z.tuple([z.number().min(-180).max(180), z.number().min(-90).max(90)]);
const zoneFeatureSchema = z.object({
  type: z.literal('Feature'),
  properties: z.object({
    id: z.string().min(1),
    pack: packSchema,
    kind: z.enum(['airport', 'unpaved', 'bandeira2-signed', 'speed-limit']),
    name: z.string().min(1),
    speedLimitKmh: z.number().positive().optional(),
    source,
  }),
  geometry: z.object({ type: z.literal('Polygon'), coordinates: z.array(z.array(position).min(4)).min(1) }),
});
const zoneCollectionSchema = z.object({ type: z.literal('FeatureCollection'), features: z.array(zoneFeatureSchema) });

const stopSchema = z.object({
  id: z.string().min(1),
  name: z.string().min(1),
  lat: z.number().min(-90).max(90),
  lon: z.number().min(-180).max(180),
  /** The registry's `source` column: where the stop list comes from (at most 64 characters). */
  source: z.string().min(1).max(64),
});
const stopFileSchema = z.object({ source, stops: z.array(stopSchema) });

export type DemoUnitValue = z.infer<typeof unitValueSchema>;
export type DemoHoliday = z.infer<typeof holidaySchema>;
export type DemoStop = z.infer<typeof stopSchema>;

function readJson<T>(file: string, schema: z.ZodType<T>): T {
  const url = new URL(file, DATA_DIR);
  const parsed = schema.safeParse(JSON.parse(readFileSync(url, 'utf8')));
  if (!parsed.success) throw new Error(`${url.pathname}: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

export const demoUnitValues = (): DemoUnitValue[] => readJson('unit-values.json', z.array(unitValueSchema));
export const demoHolidays = (): DemoHoliday[] => readJson('holidays.json', z.array(holidaySchema));

/** The regular-service stops (SPTrans GTFS) along the simulated charter lines. */
export const spRegularStops = (): DemoStop[] => readJson('sp-regular-stops.json', stopFileSchema).stops;

/** The zones as `POST /v1/zones` takes them. */
export function demoZones() {
  return readJson('zones.geojson', zoneCollectionSchema).features.map(({ properties: p, geometry }) => ({
    id: p.id,
    pack: p.pack,
    kind: p.kind,
    name: p.name,
    geometry,
    ...(p.speedLimitKmh !== undefined ? { speedLimitKmh: p.speedLimitKmh } : {}),
  }));
}

/** Every record the demo registers, in the API's shapes (the `source` and `demoValue` notes dropped). */
export function demoReferenceBodies() {
  return {
    'unit-values': demoUnitValues().map(({ demoValue: _demo, source: _source, ...body }) => body),
    holidays: demoHolidays().map(({ source: _source, ...body }) => body),
    zones: demoZones(),
    stops: spRegularStops(),
  };
}
