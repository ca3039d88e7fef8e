import type { Pack } from '@vigia/core';
import { defineRule, type Finding, keepState, noFindings, type PackRule, type RuleMeta } from '../../engine/rule.js';
import { formatLocalIso } from '../../time/local-time.js';
import type { RuleId } from '../../violations/rule-ids.js';
import { type LastReport, shouldReport } from './report-throttle.js';
import { round } from './round.js';
import { isHired, type TaxiContext } from './taxi-context.js';
import type { EndedTrip, TripView } from './taxi-trip.js';

/**
 * Tariff 2 (Bandeira II) charged while none of its conditions held, over a stretch long enough
 * to matter (≥ `minSeconds` or ≥ `minMeters`). One violation per meter trip, listing every
 * qualifying stretch. Where a condition can only be known at the end of the trip (DF: the trip
 * starts or ends at the airport) the decision waits for the trip's end; meanwhile a provisional
 * `suspected` alert may be raised live, and is withdrawn if the trip ends at the airport.
 */

export interface Bandeira2Justification {
  readonly allowed: boolean;
  /** Article that allows tariff 2 at this sample. */
  readonly clause: string | null;
  /** Why a violation at this sample could only be suspected (unknown passenger count, ponto facultativo...). */
  readonly doubts: readonly string[];
}

export interface AirportSettings {
  readonly mode: 'origin-or-destination' | 'origin-and-destination';
  readonly marginM: number;
}

interface Stretch {
  readonly startMs: number;
  readonly lastMs: number;
  readonly durationS: number;
  readonly distanceM: number;
  readonly lat: number;
  readonly lon: number;
  readonly doubts: readonly string[];
}

interface TripState {
  readonly id: string;
  readonly eventId: string;
  readonly startMs: number;
  readonly startAtAirport: boolean | null;
  readonly qualifying: readonly Stretch[];
  readonly current: Stretch | null;
  readonly raised: boolean;
  readonly reported: LastReport | null;
  readonly surchargeCentsPerKm: number | null;
}

export interface Bandeira2RuleSpec<C> {
  readonly id: RuleId;
  readonly pack: Pack;
  readonly legalBasis: readonly string[];
  readonly description: { readonly pt: string; readonly en: string };
  readonly penalty: RuleMeta<C>['penalty'];
  justify(ctx: TaxiContext, config: C): Bandeira2Justification;
  stretch(config: C): { readonly minSeconds: number; readonly minMeters: number };
  /** The airport condition, decided at trip end (null: the pack has none). */
  airport(config: C): AirportSettings | null;
  provisionalAlerts(config: C): boolean;
  /** What tariff 2 adds per km over tariff 1, in cents (null when the tariff is not configured). */
  surchargeCentsPerKm(ctx: TaxiContext, config: C): number | null;
}

/**
 * A stretch's doubts with more added, each once. A stretch on tariff 2 grows on every sample and
 * most add no doubt: it keeps its list instead of copying it through a new set.
 */
function withDoubts(doubts: readonly string[], added: readonly string[], more: readonly string[]): readonly string[] {
  const distinct = doubts.every((d, i) => doubts.indexOf(d) === i);
  if (distinct && added.every((d) => doubts.includes(d)) && more.every((d) => doubts.includes(d))) return doubts;
  return [...new Set([...doubts, ...added, ...more])];
}

const qualifies = (s: Stretch, t: { minSeconds: number; minMeters: number }): boolean =>
  s.durationS >= t.minSeconds || s.distanceM >= t.minMeters;

export function bandeira2Rule<C>(spec: Bandeira2RuleSpec<C>): PackRule<C, TaxiContext> {
  const atAirport = (ctx: TaxiContext, lat: number, lon: number, settings: AirportSettings): boolean =>
    ctx.registry.zonesAt(lat, lon, ctx.ms, ctx.pack, ['airport'], settings.marginM).length > 0;

  const closeStretch = (trip: TripState, config: C): TripState => {
    if (!trip.current) return trip;
    const q = qualifies(trip.current, spec.stretch(config));
    return { ...trip, current: null, qualifying: q ? [...trip.qualifying, trip.current] : trip.qualifying };
  };

  const finding = (
    ctx: TaxiContext | null,
    timeZone: string,
    trip: TripState,
    phase: 'ongoing' | 'final',
    config: C,
    extraDoubts: readonly string[],
    airport: { startAtAirport: boolean | null; endAtAirport: boolean | null } | null,
    endMs: number,
  ): Finding | null => {
    const t = spec.stretch(config);
    const stretches = [...trip.qualifying, ...(trip.current && qualifies(trip.current, t) ? [trip.current] : [])];
    const first = stretches[0];
    const last = stretches[stretches.length - 1];
    if (!first || !last) return null;
    const totalS = stretches.reduce((a, s) => a + s.durationS, 0);
    const totalM = stretches.reduce((a, s) => a + s.distanceM, 0);
    const doubts = [...new Set([...stretches.flatMap((s) => s.doubts), ...extraDoubts])];
    const estimate = trip.surchargeCentsPerKm === null ? null : Math.round((trip.surchargeCentsPerKm * totalM) / 1000);
    return {
      ruleId: spec.id,
      eventId: trip.eventId,
      phase,
      startedAt: first.startMs,
      endedAt: last.lastMs,
      lat: first.lat,
      lon: first.lon,
      place: null,
      measured: {
        tripId: trip.id,
        stretches: stretches.map((s) => ({
          from: formatLocalIso(s.startMs, timeZone),
          to: formatLocalIso(s.lastMs, timeZone),
          seconds: round(s.durationS),
          metres: Math.round(s.distanceM),
        })),
        tariff2Seconds: round(totalS),
        tariff2Metres: Math.round(totalM),
        minStretchSeconds: t.minSeconds,
        minStretchMetres: t.minMeters,
        overchargeEstimateCents: estimate,
        ...(airport ? { tripStartedAtAirport: airport.startAtAirport, tripEndedAtAirport: airport.endAtAirport } : {}),
        doubts,
      },
      confidence: doubts.length > 0 ? 'suspected' : 'confirmed',
      variant: null,
      trip: { id: trip.id, startedAt: trip.startMs, endedAt: endMs },
      driverId: ctx?.sample.tachoDriverId ?? null,
    };
  };

  /** Decide a trip that is over. */
  const decide = (
    ctx: TaxiContext | null,
    timeZone: string,
    trip: TripState,
    ended: EndedTrip | null,
    config: C,
  ): Finding[] => {
    const closed = closeStretch(trip, config);
    const airportSettings = spec.airport(config);
    const endMs = ended?.lastMs ?? closed.current?.lastMs ?? closed.startMs;
    let airport: { startAtAirport: boolean | null; endAtAirport: boolean | null } | null = null;
    const doubts: string[] = [];
    if (airportSettings) {
      const endAtAirport =
        ended && !ended.incomplete && ctx ? atAirport(ctx, ended.lastLat, ended.lastLon, airportSettings) : null;
      airport = { startAtAirport: closed.startAtAirport, endAtAirport };
      const start = closed.startAtAirport === true;
      const end = endAtAirport === true;
      const justified = airportSettings.mode === 'origin-or-destination' ? start || end : start && end;
      if (justified) {
        if (!closed.raised) return [];
        const f = finding(ctx, timeZone, closed, 'final', config, [], airport, endMs);
        return f
          ? [{ ...f, phase: 'withdrawn', reason: 'the trip started or ended at the airport (Bandeira II allowed)' }]
          : [];
      }
      if (endAtAirport === null) doubts.push('trip end not observed: the airport condition cannot be excluded');
    }
    const f = finding(ctx, timeZone, closed, 'final', config, doubts, airport, endMs);
    return f ? [f] : [];
  };

  return defineRule<{ trip: TripState | null; timeZone: string }, C, TaxiContext>({
    id: spec.id,
    pack: spec.pack,
    legalBasis: spec.legalBasis,
    description: spec.description,
    penalty: spec.penalty,
    init: () => ({ trip: null, timeZone: 'UTC' }),
    step(state, ctx, config) {
      if (state.trip === null && ctx.trip.current === null && state.timeZone === ctx.timeZone) {
        return keepState;
      }
      // Made only when there is something to say: a hired taxi's sample mostly has nothing.
      let findings: Finding[] | null = null;
      let trip = state.trip;
      const ended = ctx.trip.ended;
      if (trip && ended && ended.id === trip.id) {
        findings = decide(ctx, ctx.timeZone, trip, ended, config);
        trip = null;
      }
      const current: TripView | null = ctx.trip.current;
      if (!current) return { state: { trip: null, timeZone: ctx.timeZone }, findings: findings ?? noFindings };
      if (!trip || trip.id !== current.id) {
        const airportSettings = spec.airport(config);
        trip = {
          id: current.id,
          eventId: `${current.id}:${current.startMs}`,
          startMs: current.startMs,
          startAtAirport: airportSettings ? atAirport(ctx, current.startLat, current.startLon, airportSettings) : null,
          qualifying: [],
          current: null,
          raised: false,
          reported: null,
          surchargeCentsPerKm: spec.surchargeCentsPerKm(ctx, config),
        };
      }
      const airportSettings = spec.airport(config);
      // A trip from the airport is justified whatever follows (under "origin or destination").
      const justifiedByOrigin = airportSettings?.mode === 'origin-or-destination' && trip.startAtAirport === true;
      const onTariff2 = ctx.sample.meterTariff === 2 && isHired(ctx) && !justifiedByOrigin;
      const j = onTariff2 ? spec.justify(ctx, config) : null;
      if (!j || j.allowed || ctx.gapBefore) trip = closeStretch(trip, config);
      if (j && !j.allowed) {
        const s = ctx.sample;
        const cur = trip.current;
        const late = cur && ctx.lateDropped > 0 ? ['telemetry of this stretch arrived out of order'] : [];
        // Spelled out rather than spread: a stretch on tariff 2 grows on every sample.
        const stretch: Stretch = cur
          ? {
              startMs: cur.startMs,
              lastMs: ctx.ms,
              durationS: cur.durationS + ctx.dtS,
              distanceM: cur.distanceM + ctx.segmentM,
              lat: cur.lat,
              lon: cur.lon,
              doubts: withDoubts(cur.doubts, j.doubts, late),
            }
          : { startMs: ctx.ms, lastMs: ctx.ms, durationS: 0, distanceM: 0, lat: s.lat, lon: s.lon, doubts: j.doubts };
        trip = {
          id: trip.id,
          eventId: trip.eventId,
          startMs: trip.startMs,
          startAtAirport: trip.startAtAirport,
          qualifying: trip.qualifying,
          current: stretch,
          raised: trip.raised,
          reported: trip.reported,
          surchargeCentsPerKm: trip.surchargeCentsPerKm,
        };
      }
      const live = airportSettings ? spec.provisionalAlerts(config) : true;
      const t = spec.stretch(config);
      const qualifyingNow = trip.qualifying.length > 0 || (trip.current !== null && qualifies(trip.current, t));
      if (live && qualifyingNow) {
        const provisional = airportSettings !== null;
        const currentQualifies = trip.current !== null && qualifies(trip.current, t);
        const anyDoubt =
          provisional ||
          trip.qualifying.some((s) => s.doubts.length > 0) ||
          (currentQualifies && (trip.current?.doubts.length ?? 0) > 0);
        const confidence = anyDoubt ? 'suspected' : 'confirmed';
        const endedAt = trip.current?.lastMs ?? trip.qualifying[trip.qualifying.length - 1]?.lastMs ?? ctx.ms;
        if (shouldReport(trip.reported, endedAt, confidence, null, ctx.general.updateIntervalS)) {
          const doubts = provisional ? ['provisional: the airport condition is decided at the end of the trip'] : [];
          const f = finding(ctx, ctx.timeZone, trip, 'ongoing', config, doubts, null, ctx.ms);
          if (f) {
            findings ??= [];
            findings.push(f);
            trip = { ...trip, raised: true, reported: { endedAt, confidence, variant: null } };
          }
        }
      }
      // A trip on tariff 1 leaves the state as it was: keep the object (it lives until the next sample).
      const unchanged = trip === state.trip && state.timeZone === ctx.timeZone;
      if (unchanged && findings === null) return keepState;
      return { state: unchanged ? state : { trip, timeZone: ctx.timeZone }, findings: findings ?? noFindings };
    },
    close(state, _info, config) {
      if (!state.trip) return { state: { trip: null, timeZone: state.timeZone }, findings: noFindings };
      return {
        state: { trip: null, timeZone: state.timeZone },
        findings: decide(null, state.timeZone, state.trip, null, config),
      };
    },
  });
}
