import type { TelemetryInput } from '@vigia/core';
import type { OsmandProfile } from '../profiles/emulator-profile.js';
import { fieldValue, osmandTextFor } from '../profiles/field-encoding.js';

const KMH_PER_KNOT = 1.852;

/**
 * A simulator sample as the query string Traccar Client for Android sends — `id`, `timestamp` in
 * epoch seconds, `lat`, `lon`, `speed` in knots, `bearing`, `accuracy` — plus the attributes the
 * device's profile assigns to the other fields (what a taxi or charter app adds to the request).
 */
export function sampleToQuery(identifier: string, sample: TelemetryInput, profile: OsmandProfile): URLSearchParams {
  const ts = typeof sample.ts === 'number' ? sample.ts : Date.parse(sample.ts);
  const q = new URLSearchParams({
    id: identifier,
    timestamp: String(Math.floor(ts / 1000)),
    lat: String(sample.lat),
    lon: String(sample.lon),
  });
  if (sample.speedKmh !== undefined) q.set('speed', String(sample.speedKmh / KMH_PER_KNOT));
  if (sample.headingDeg !== undefined) q.set('bearing', String(sample.headingDeg));
  if (sample.accuracyM !== undefined) q.set('accuracy', String(sample.accuracyM));
  for (const [field, m] of Object.entries(profile.fields)) {
    const text = osmandTextFor(m, fieldValue(sample, field));
    if (text !== undefined) q.set(m.attr, text);
  }
  return q;
}
