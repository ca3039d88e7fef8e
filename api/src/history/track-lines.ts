import { haversineM } from '@vigia/rules';

/**
 * A vehicle's samples in time order → the GeoJSON features of its track: one line per stretch
 * without a gap. Pure, so the splitting and thinning are tested without a database.
 */

/** One stored sample as the track reads it (`t`: epoch milliseconds). */
export interface TrackSample {
  t: number;
  lat: number;
  lon: number;
  speedKmh: number | null;
  meterState: string | null;
  tariff: number | null;
  passengers: number | null;
}

export interface GapPolicy {
  /** A silence longer than this (ms) between two samples is a gap. */
  maxSilenceMs: number;
  /** A jump between two samples faster than this (km/h) is a gap: a fix far off, not a drive. */
  maxJumpKmh: number;
}

export interface TrackProperties {
  times: string[];
  speedsKmh: (number | null)[];
  meterStates: (string | null)[];
  tariffs: (number | null)[];
  passengers: (number | null)[];
}

/** A stretch of two samples or more is a LineString; a lone sample between two gaps, a Point. */
export type TrackFeature =
  | { type: 'Feature'; geometry: { type: 'LineString'; coordinates: [number, number][] }; properties: TrackProperties }
  | { type: 'Feature'; geometry: { type: 'Point'; coordinates: [number, number] }; properties: TrackProperties };

/** Whether the step from `a` to `b` (b later) is a gap under the policy. */
export function isGap(a: TrackSample, b: TrackSample, policy: GapPolicy): boolean {
  const dtMs = b.t - a.t;
  if (dtMs > policy.maxSilenceMs) return true;
  // Two fixes in the same second far apart are a jump too (dtMs 0 after deduplication is impossible).
  const kmh = (haversineM(a.lat, a.lon, b.lat, b.lon) / Math.max(dtMs, 1)) * 3600;
  return kmh > policy.maxJumpKmh;
}

/** Splits time-ordered samples into stretches at each gap. */
export function splitAtGaps(samples: readonly TrackSample[], policy: GapPolicy): TrackSample[][] {
  const stretches: TrackSample[][] = [];
  let current: TrackSample[] = [];
  for (const s of samples) {
    const prev = current[current.length - 1];
    if (prev && isGap(prev, s, policy)) {
      stretches.push(current);
      current = [];
    }
    current.push(s);
  }
  if (current.length > 0) stretches.push(current);
  return stretches;
}

/**
 * At most one sample per `stepMs` within a stretch, always keeping its first and last sample and
 * every sample where the meter state, tariff or passenger count changes (and the one before it),
 * so the timeline's states change at the instants they did.
 */
export function thin(stretch: readonly TrackSample[], stepMs: number): TrackSample[] {
  if (stretch.length <= 2) return [...stretch];
  const kept: TrackSample[] = [];
  let lastKeptT = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < stretch.length; i++) {
    const s = stretch[i] as TrackSample;
    const prev = stretch[i - 1];
    const next = stretch[i + 1];
    const changes = (x: TrackSample | undefined, y: TrackSample | undefined) =>
      !!x && !!y && (x.meterState !== y.meterState || x.tariff !== y.tariff || x.passengers !== y.passengers);
    if (!prev || !next || s.t - lastKeptT >= stepMs || changes(prev, s) || changes(s, next)) {
      kept.push(s);
      lastKeptT = s.t;
    }
  }
  return kept;
}

function propertiesOf(stretch: readonly TrackSample[]): TrackProperties {
  return {
    times: stretch.map((s) => new Date(s.t).toISOString()),
    speedsKmh: stretch.map((s) => s.speedKmh),
    meterStates: stretch.map((s) => s.meterState),
    tariffs: stretch.map((s) => s.tariff),
    passengers: stretch.map((s) => s.passengers),
  };
}

/** The track's features: one per stretch between gaps, thinned when `stepMs` is given. */
export function trackFeatures(samples: readonly TrackSample[], policy: GapPolicy, stepMs?: number): TrackFeature[] {
  return splitAtGaps(samples, policy).map((raw) => {
    const stretch = stepMs ? thin(raw, stepMs) : raw;
    const properties = propertiesOf(stretch);
    const first = stretch[0] as TrackSample;
    if (stretch.length === 1) {
      return { type: 'Feature', geometry: { type: 'Point', coordinates: [first.lon, first.lat] }, properties };
    }
    return {
      type: 'Feature',
      geometry: { type: 'LineString', coordinates: stretch.map((s) => [s.lon, s.lat] as [number, number]) },
      properties,
    };
  });
}
