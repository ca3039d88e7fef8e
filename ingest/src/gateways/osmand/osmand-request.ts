import { controlCharacterAt } from '@vigia/core';
import { z } from 'zod';
import type { RawValue } from '../profiles/field-mapping.js';
import { parseOsmandTimestamp } from './osmand-timestamp.js';

/**
 * The two forms of the OsmAnd protocol as Traccar's server accepts them:
 *
 * - query string, on GET or POST (Traccar Client for Android posts an empty body with the
 *   parameters in the URL; some clients put them in an urlencoded body instead):
 *   `id` (or `deviceid`), `timestamp`, `lat`, `lon` (or `location=lat,lon`), `speed` in knots,
 *   `bearing` (or `heading`), `altitude`, `accuracy`, `batt`, and any other parameter as an
 *   attribute;
 * - JSON (the Traccar Client built on the background-geolocation plugin):
 *   `{ "device_id": "...", "location": { "timestamp": ISO, "coords": { "latitude", "longitude",
 *   "speed" (m/s, -1 unknown), "heading" (-1 unknown), "accuracy", "altitude" }, "is_moving",
 *   "odometer", "event", "battery": { "level" 0–1, "is_charging" }, "activity": { "type" },
 *   "extras": { ... } } }`; `location` may also be an array (the plugin's batch mode).
 */

export interface OsmAndPosition {
  /** Epoch milliseconds; undefined when the client sent none (then the time of receipt is used, as Traccar does). */
  tsMs: number | undefined;
  lat: number;
  lon: number;
  speedKmh?: number;
  headingDeg?: number;
  accuracyM?: number;
  /** Everything else the client sent, for the device profile. */
  attributes: Map<string, RawValue>;
}

export type OsmAndForm = 'query' | 'json';

export type OsmAndParse =
  | { ok: true; form: OsmAndForm; identifier: string; positions: OsmAndPosition[] }
  | {
      ok: false;
      form: OsmAndForm;
      code: 'MISSING_DEVICE_ID' | 'INVALID_DEVICE_ID' | 'INVALID_REQUEST' | 'NO_POSITION' | 'CONTROL_CHARACTER';
      message: string;
      identifier?: string;
    };

const KNOTS_TO_KMH = 1.852;
const MPS_TO_KMH = 3.6;
const MAX_BATCH = 1_000;

const NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;
const decimal = z.string().trim().regex(NUMBER, 'a decimal number').transform(Number).pipe(z.number().finite());
const identifier = z.string().trim().min(1).max(64);

/** The parameters with a meaning of their own; all of them are also passed on as attributes. */
const querySchema = z.object({
  id: identifier.optional(),
  deviceid: identifier.optional(),
  timestamp: z.string().max(64).optional(),
  lat: decimal.optional(),
  lon: decimal.optional(),
  location: z
    .string()
    .trim()
    .regex(/^[^,]+,[^,]+$/, 'lat,lon')
    .transform((v) => v.split(','))
    .pipe(z.tuple([decimal, decimal]))
    .optional(),
  speed: decimal.optional(),
  bearing: decimal.optional(),
  heading: decimal.optional(),
  accuracy: decimal.optional(),
});

const MAX_ATTRIBUTES = 200;

function issues(err: z.ZodError): string {
  return err.issues.map((i) => `${i.path.join('.') || 'request'}: ${i.message}`).join('; ');
}

/**
 * The first of `texts` (name → text) holding a control character or a lone surrogate, described;
 * such a parameter (`driverUniqueId=ab%00cd`) would become an id PostgreSQL cannot store. The
 * whole request is refused with CONTROL_CHARACTER (400): the same position sent again cannot
 * succeed, and a client that sends NUL is broken or probing.
 */
function controlCharacterIn(texts: Iterable<readonly [string, string]>): string | undefined {
  for (const [name, text] of texts) {
    if (controlCharacterAt(name) >= 0) return `a parameter name contains a control character`;
    const at = controlCharacterAt(text);
    if (at >= 0) {
      const code = text.charCodeAt(at).toString(16).padStart(4, '0');
      return `parameter ${JSON.stringify(name.slice(0, 64))} contains U+${code.toUpperCase()} (a control character or a lone surrogate)`;
    }
  }
  return undefined;
}

/**
 * What an OsmAnd id may be: 1 to 64 visible ASCII characters (IMEIs, the numbers Traccar Client
 * generates, names an administrator chose). Anything else cannot be a registered device, and the
 * port is unauthenticated: such an id is refused (INVALID_DEVICE_ID, 400) before any registry
 * lookup, cache entry or log line holds it — 8 KB ids by the thousand once grew memory and log.
 */
export const OSMAND_DEVICE_ID = /^[\x21-\x7e]{1,64}$/;

function invalidDeviceId(form: OsmAndForm, id: string): OsmAndParse {
  const trimmed = id.trim();
  const why = trimmed.length > 64 ? `${trimmed.length} characters` : 'characters other than visible ASCII';
  return { ok: false, form, code: 'INVALID_DEVICE_ID', message: `the device id has ${why} (1 to 64 visible ASCII)` };
}

/** Parses the query-string form; `params` are the URL's, or the body's when the URL has none. */
export function parseOsmandQuery(params: URLSearchParams): OsmAndParse {
  // The first of repeated parameters counts; empty ones are absent, as in Traccar.
  const first = new Map<string, string>();
  for (const [key, value] of params) {
    if (value !== '' && !first.has(key) && first.size < MAX_ATTRIBUTES) first.set(key, value);
  }
  const id = first.get('id') ?? first.get('deviceid');
  if (id !== undefined && !OSMAND_DEVICE_ID.test(id.trim())) return invalidDeviceId('query', id);
  const control = controlCharacterIn(first);
  // The id is visible ASCII by now, so it may be looked up and named in the log line.
  if (control) {
    return {
      ok: false,
      form: 'query',
      code: 'CONTROL_CHARACTER',
      message: control,
      ...(id ? { identifier: id.trim() } : {}),
    };
  }
  const parsed = querySchema.safeParse(Object.fromEntries(first));
  if (!parsed.success) {
    return {
      ok: false,
      form: 'query',
      code: 'INVALID_REQUEST',
      message: issues(parsed.error),
      ...(id ? { identifier: id.trim() } : {}),
    };
  }
  const q = parsed.data;
  const device = q.id ?? q.deviceid;
  if (!device) return { ok: false, form: 'query', code: 'MISSING_DEVICE_ID', message: 'no id parameter' };
  const lat = q.lat ?? q.location?.[0];
  const lon = q.lon ?? q.location?.[1];
  if (lat === undefined || lon === undefined) {
    return {
      ok: false,
      form: 'query',
      code: 'NO_POSITION',
      message: 'no lat/lon (or location) parameter',
      identifier: device,
    };
  }
  let tsMs: number | undefined;
  if (q.timestamp !== undefined) {
    const ts = parseOsmandTimestamp(q.timestamp);
    if (!ts.ok) return { ok: false, form: 'query', code: 'INVALID_REQUEST', message: ts.message, identifier: device };
    tsMs = ts.ms;
  }
  const position: OsmAndPosition = { tsMs, lat, lon, attributes: new Map() };
  if (q.speed !== undefined) position.speedKmh = q.speed * KNOTS_TO_KMH;
  const heading = q.bearing ?? q.heading;
  if (heading !== undefined && heading >= 0) position.headingDeg = heading;
  // Traccar Client sends accuracy 0 when the fix came from GPS and it has no estimate: unknown, not perfect.
  if (q.accuracy !== undefined && q.accuracy > 0) position.accuracyM = q.accuracy;
  for (const [key, value] of first) position.attributes.set(key, { kind: 'text', value });
  return { ok: true, form: 'query', identifier: device, positions: [position] };
}

const coordsSchema = z.looseObject({
  latitude: z.number().finite(),
  longitude: z.number().finite(),
  accuracy: z.number().finite().optional(),
  speed: z.number().finite().optional(),
  heading: z.number().finite().optional(),
  altitude: z.number().finite().optional(),
});

const locationSchema = z.looseObject({
  timestamp: z.string().max(64),
  coords: coordsSchema.optional(),
  is_moving: z.boolean().optional(),
  odometer: z.number().finite().optional(),
  event: z.string().max(64).optional(),
  battery: z.looseObject({ level: z.number().finite().optional(), is_charging: z.boolean().optional() }).optional(),
  activity: z.looseObject({ type: z.string().max(64).optional() }).optional(),
  extras: z.record(z.string().max(64), z.unknown()).optional(),
});

const jsonSchema = z.looseObject({
  device_id: identifier,
  location: z.union([locationSchema, z.array(locationSchema).min(1).max(MAX_BATCH)]),
});

type JsonLocation = z.output<typeof locationSchema>;

function jsonPosition(l: JsonLocation): OsmAndPosition | { error: OsmAndParse & { ok: false } } | undefined {
  if (!l.coords) return undefined;
  const ts = parseOsmandTimestamp(l.timestamp);
  if (!ts.ok) return { error: { ok: false, form: 'json', code: 'INVALID_REQUEST', message: ts.message } };
  const c = l.coords;
  const p: OsmAndPosition = { tsMs: ts.ms, lat: c.latitude, lon: c.longitude, attributes: new Map() };
  // The plugin reports -1 for what it does not know.
  if (c.speed !== undefined && c.speed >= 0) p.speedKmh = c.speed * MPS_TO_KMH;
  if (c.heading !== undefined && c.heading >= 0) p.headingDeg = c.heading;
  if (c.accuracy !== undefined && c.accuracy > 0) p.accuracyM = c.accuracy;
  const a = p.attributes;
  if (c.altitude !== undefined) a.set('altitude', { kind: 'json', value: c.altitude });
  if (l.is_moving !== undefined) a.set('motion', { kind: 'json', value: l.is_moving });
  if (l.odometer !== undefined) a.set('odometer', { kind: 'json', value: l.odometer });
  if (l.event !== undefined) a.set('event', { kind: 'text', value: l.event });
  if (l.activity?.type !== undefined) a.set('activity', { kind: 'text', value: l.activity.type });
  if (l.battery?.level !== undefined && l.battery.level >= 0) {
    a.set('batt', { kind: 'json', value: Math.round(l.battery.level * 100) });
  }
  if (l.battery?.is_charging !== undefined) a.set('charge', { kind: 'json', value: l.battery.is_charging });
  for (const [key, value] of Object.entries(l.extras ?? {}).slice(0, MAX_ATTRIBUTES)) {
    if (typeof value === 'string') a.set(key, { kind: 'text', value });
    else if (typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))) {
      a.set(key, { kind: 'json', value });
    }
  }
  return p;
}

/** The device id of a JSON body, read before anything else so an unknown device gets its own answer. */
export function jsonIdentifier(body: unknown): string | undefined {
  const parsed = z.looseObject({ device_id: identifier }).safeParse(body);
  return parsed.success ? parsed.data.device_id : undefined;
}

export function parseOsmandJson(body: unknown): OsmAndParse {
  const rawId = body && typeof body === 'object' ? (body as { device_id?: unknown }).device_id : undefined;
  if (typeof rawId === 'string' && !OSMAND_DEVICE_ID.test(rawId.trim())) return invalidDeviceId('json', rawId);
  const identifierOf = jsonIdentifier(body);
  if (!identifierOf) return { ok: false, form: 'json', code: 'MISSING_DEVICE_ID', message: 'no device_id' };
  const parsed = jsonSchema.safeParse(body);
  if (!parsed.success) {
    return {
      ok: false,
      form: 'json',
      code: 'INVALID_REQUEST',
      message: issues(parsed.error),
      identifier: identifierOf,
    };
  }
  const locations = Array.isArray(parsed.data.location) ? parsed.data.location : [parsed.data.location];
  const positions: OsmAndPosition[] = [];
  for (const l of locations) {
    const p = jsonPosition(l);
    if (p === undefined) {
      return {
        ok: false,
        form: 'json',
        code: 'NO_POSITION',
        message: 'location has no coords',
        identifier: identifierOf,
      };
    }
    if ('error' in p) return { ...p.error, identifier: identifierOf };
    const texts = [...p.attributes].flatMap(([k, v]) =>
      v.kind === 'text' ? [[k, v.value] as const] : [[k, ''] as const],
    );
    const control = controlCharacterIn(texts);
    if (control) {
      return { ok: false, form: 'json', code: 'CONTROL_CHARACTER', message: control, identifier: identifierOf };
    }
    positions.push(p);
  }
  return { ok: true, form: 'json', identifier: identifierOf, positions };
}
