import type { Pack, Telemetry } from '@vigia/core';
import {
  defineRule,
  type Finding,
  keepState,
  noFindings,
  type PackRule,
  type RuleMeta,
  type RuleStep,
} from '../../engine/rule.js';
import type { SampleFacts, Writable } from '../../engine/sample-facts.js';
import type { RuleId } from '../../violations/rule-ids.js';
import { round } from './round.js';
import { isHired, type TaxiContext } from './taxi-context.js';

/**
 * Meter fare above the fare recomputed from the trace and the pack's tariff table. Distance is
 * the meter trip's measure (taxi-trip.ts), with GPS jitter filtered out as for the detour rule:
 * a taxi waiting with its fixes wandering is waiting (time), not driving. The meter
 * charges distance at the displayed tariff, and time (*hora parada*) while stopped or slower
 * than the crossover speed (hourly price ÷ km price, where the two charges are equal). What the
 * trace cannot show is bounded instead of guessed: a stretch with no tariff reading is priced at
 * tariff 2; baggage (not in telemetry) may add up to `baggageMaxFraction`. So:
 * - fare above the upper bound (with baggage) + tolerance → `confirmed`;
 * - above the recomputed fare without baggage + tolerance but within the baggage allowance →
 *   `suspected` (variant `possible-baggage`), when configured;
 * - a trip with a telemetry gap, an interval between samples longer than `maxSampleIntervalS`,
 *   samples that arrived late, no final fare, or an unconfigured tariff is not judged: the
 *   recomputed distance (chords between samples) would be a lower bound, which could only
 *   inflate the overcharge;
 * - nor is a trip whose start the trace did not see (`tripStartSeen`): its first hired sample
 *   follows a gap or an interval longer than `maxSampleIntervalS` (or samples dropped late), the
 *   meter was already hired under the same trip at the sample before (or that sample has no meter
 *   reading), or the fare on its first sample already exceeds the bandeirada plus the tolerance. A dropout that hides the boarding
 *   hides the first kilometres too: priced from its middle, an honest trip looks overcharged.
 *   Overcharge is judged on complete traces only, and a trace is complete from the meter's start.
 * Whether tariff 2 itself was justified is the Bandeira II rule's business, not this one's.
 */

export interface FareModel {
  readonly bandeiradaCents: number;
  readonly kmCents1: number;
  readonly kmCents2: number;
  /** Null: the tariff has no hourly charge configured (trips with waiting time are not judged). */
  readonly waitingHourCents: number | null;
  readonly baggageMaxFraction: number;
  readonly description: string;
}

export interface OverchargeSettings {
  /** Longest interval between trip samples for which the trace's distance is trusted (s). */
  readonly maxSampleIntervalS: number;
  readonly toleranceFraction: number;
  readonly toleranceCents: number;
  readonly possibleBaggage: 'suspected' | 'ignore';
}

interface TripAcc {
  readonly id: string;
  readonly eventId: string;
  readonly startMs: number;
  readonly lat: number;
  readonly lon: number;
  readonly model: FareModel | null;
  readonly metres1: number;
  readonly metres2: number;
  readonly metresUnknown: number;
  readonly waitingS: number;
  readonly lastTariff: 1 | 2 | null;
  readonly lastStopped: boolean;
  readonly lastMs: number;
  /** The trace saw the meter start this trip (`tripStartSeen`, and a first fare at the bandeirada). */
  readonly startSeen: boolean;
}

const inTrip = (s: Telemetry): boolean => s.meterState === 'hired' || s.meterState === 'stopped';

/**
 * Did the trace see the meter start this trip? The sample before the trip's first one must be
 * within `maxSampleIntervalS` (no gap, nothing dropped late) and show the meter free/off, or
 * running a different trip (a trip id change: the meter restarted at the bandeirada). Otherwise
 * the meter may have been running, unseen, for any distance before the first hired sample.
 */
export function tripStartSeen(ctx: SampleFacts, meterTripId: string | null, maxSampleIntervalS: number): boolean {
  const prev = ctx.prev;
  if (ctx.gapBefore || prev === null || ctx.lateDropped > 0 || ctx.dtS > maxSampleIntervalS) return false;
  if (prev.meterState === 'free' || prev.meterState === 'off') return true;
  return inTrip(prev) && prev.meterTripId !== null && meterTripId !== null && prev.meterTripId !== meterTripId;
}

export function recomputeFare(
  model: FareModel,
  acc: { metres1: number; metres2: number; metresUnknown: number; waitingS: number },
): { lowerCents: number; upperCents: number; upperWithBaggageCents: number } {
  const time = model.waitingHourCents === null ? 0 : (model.waitingHourCents * acc.waitingS) / 3600;
  const known = model.bandeiradaCents + (model.kmCents1 * acc.metres1 + model.kmCents2 * acc.metres2) / 1000 + time;
  const lower = known + (model.kmCents1 * acc.metresUnknown) / 1000;
  const upper = known + (model.kmCents2 * acc.metresUnknown) / 1000;
  return {
    lowerCents: Math.round(lower),
    upperCents: Math.round(upper),
    upperWithBaggageCents: Math.round(upper * (1 + model.baggageMaxFraction)),
  };
}

/** A fare above `boundCents` by more than the tolerance (fraction, then centavos). */
const exceeds = (fareCents: number, boundCents: number, s: OverchargeSettings): boolean =>
  fareCents > boundCents * (1 + s.toleranceFraction) + s.toleranceCents;

export function overchargeRule<C>(spec: {
  id: RuleId;
  pack: Pack;
  legalBasis: readonly string[];
  description: { pt: string; en: string };
  penalty: RuleMeta<C>['penalty'];
  fareModel(ctx: TaxiContext, config: C): FareModel | null;
  settings(config: C): OverchargeSettings;
}): PackRule<C, TaxiContext> {
  const decide = (acc: TripAcc, fareCents: number, config: C): Finding | null => {
    const model = acc.model;
    if (!model || !acc.startSeen) return null;
    if (acc.waitingS > 0 && model.waitingHourCents === null) return null;
    const s = spec.settings(config);
    const fare = recomputeFare(model, acc);
    const over = (bound: number): boolean => exceeds(fareCents, bound, s);
    let variant: string | null;
    if (over(fare.upperWithBaggageCents)) variant = null;
    else if (over(fare.upperCents) && s.possibleBaggage === 'suspected') variant = 'possible-baggage';
    else return null;
    return {
      ruleId: spec.id,
      eventId: acc.eventId,
      phase: 'final',
      startedAt: acc.startMs,
      endedAt: acc.lastMs,
      lat: acc.lat,
      lon: acc.lon,
      place: null,
      measured: {
        tripId: acc.id,
        meterFareCents: fareCents,
        recomputedFareCents: fare.upperCents,
        recomputedWithMaxBaggageCents: fare.upperWithBaggageCents,
        excessCents: fareCents - fare.upperCents,
        excessFraction: round((fareCents - fare.upperCents) / fare.upperCents, 3),
        tariff1Metres: Math.round(acc.metres1),
        tariff2Metres: Math.round(acc.metres2),
        unknownTariffMetres: Math.round(acc.metresUnknown),
        waitingSeconds: round(acc.waitingS),
        toleranceFraction: s.toleranceFraction,
        toleranceCents: s.toleranceCents,
        tariff: model.description,
      },
      confidence: variant === null ? 'confirmed' : 'suspected',
      variant,
      trip: { id: acc.id, startedAt: acc.startMs, endedAt: acc.lastMs },
    };
  };

  /**
   * `own`: the accumulator was made by this rule's step for this vehicle (never restored from a
   * checkpoint, never handed out), so a later sample of the same trip updates it in place: a hired
   * taxi's accumulator was a new 14-field object per sample, outliving a young-generation
   * collection and copied or promoted by it. Nothing else holds it: `decide` copies what a finding
   * reports, `close` (and so a provisional close) only drops it, and a checkpoint takes a copy
   * without the flag (`forCheckpoint`, the shape it always had), so a restored accumulator is
   * copied once before it is updated.
   */
  interface State {
    readonly acc: TripAcc | null;
    readonly own?: boolean;
  }
  const idle: RuleStep<State> = { state: { acc: null, own: false }, findings: noFindings };
  return defineRule<State, C, TaxiContext>({
    id: spec.id,
    pack: spec.pack,
    legalBasis: spec.legalBasis,
    description: spec.description,
    penalty: spec.penalty,
    init: () => idle.state,
    forCheckpoint: (state) => ({ acc: state.acc === null ? null : { ...state.acc } }),
    step(state, ctx, config) {
      if (state.acc === null && ctx.trip.current === null) return idle;
      let findings: readonly Finding[] = noFindings;
      let acc = state.acc;
      const ended = ctx.trip.ended;
      if (acc && ended && ended.id === acc.id) {
        const s = spec.settings(config);
        const traceComplete =
          !ended.incomplete &&
          ended.gaps === 0 &&
          ended.lateDropped === 0 &&
          ended.maxIntervalS <= s.maxSampleIntervalS;
        if (traceComplete && ended.maxFareCents !== null) {
          const f = decide(acc, ended.maxFareCents, config);
          if (f) findings = [f];
        }
        acc = null;
      }
      const trip = ctx.trip.current;
      if (!trip) return { state: idle.state, findings };
      const s = ctx.sample;
      if (!acc || acc.id !== trip.id) {
        const settings = spec.settings(config);
        const model = spec.fareModel(ctx, config);
        // A meter seen starting shows the bandeirada: a first fare above it and the tolerance means
        // the meter ran before the trace saw it. (A meter that sends no fare on the trip's first
        // sample is judged on the interval alone: a later first reading cannot be told from the
        // overcharge itself.)
        const firstFare = s.meterFareCents;
        const startFareSeen =
          model === null || firstFare === null || !exceeds(firstFare, model.bandeiradaCents, settings);
        acc = {
          id: trip.id,
          eventId: `${trip.id}:${trip.startMs}`,
          startMs: trip.startMs,
          lat: trip.startLat,
          lon: trip.startLon,
          model,
          metres1: 0,
          metres2: 0,
          metresUnknown: 0,
          waitingS: 0,
          lastTariff: s.meterTariff,
          lastStopped: s.meterState === 'stopped',
          lastMs: ctx.ms,
          startSeen: startFareSeen && tripStartSeen(ctx, trip.meterTripId, settings.maxSampleIntervalS),
        };
        return { state: { acc, own: true }, findings };
      }
      // The interval since the previous sample is charged as the meter was then. Its distance is
      // the trip's own measure (taxi-trip.ts: GPS jitter while waiting adds nothing), the one the
      // detour rule reads too.
      let { metres1, metres2, metresUnknown, waitingS } = acc;
      const stepM = ctx.trip.stepM;
      if (!ctx.gapBefore && isHired(ctx) && acc.model) {
        const speedKmh = ctx.dtS > 0 ? (stepM / ctx.dtS) * 3.6 : 0;
        const price = acc.lastTariff === 2 ? acc.model.kmCents2 : acc.model.kmCents1;
        // Crossover speed (km/h) at which time and distance charge the same: cents/h ÷ cents/km.
        const crossover = acc.model.waitingHourCents === null ? 0 : acc.model.waitingHourCents / price;
        if (acc.lastStopped || speedKmh < crossover) waitingS += ctx.dtS;
        else if (acc.lastTariff === 1) metres1 += stepM;
        else if (acc.lastTariff === 2) metres2 += stepM;
        else metresUnknown += stepM;
      }
      if (state.own === true && acc === state.acc && findings === noFindings) {
        // This rule's own accumulator (see `State`), extended in place.
        const mine = acc as Writable<TripAcc>;
        mine.metres1 = metres1;
        mine.metres2 = metres2;
        mine.metresUnknown = metresUnknown;
        mine.waitingS = waitingS;
        mine.lastTariff = s.meterTariff;
        mine.lastStopped = s.meterState === 'stopped';
        mine.lastMs = ctx.ms;
        return keepState;
      }
      // Spelled out rather than spread: a restored accumulator becomes this rule's own.
      acc = {
        id: acc.id,
        eventId: acc.eventId,
        startMs: acc.startMs,
        lat: acc.lat,
        lon: acc.lon,
        model: acc.model,
        metres1,
        metres2,
        metresUnknown,
        waitingS,
        lastTariff: s.meterTariff,
        lastStopped: s.meterState === 'stopped',
        lastMs: ctx.ms,
        startSeen: acc.startSeen,
      };
      return { state: { acc, own: true }, findings };
    },
    close: () => idle,
  });
}
