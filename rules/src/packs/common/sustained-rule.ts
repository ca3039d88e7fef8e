import type { Pack } from '@vigia/core';
import type { Finding, PackRule, RuleMeta } from '../../engine/rule.js';
import { defineRule, keepState, noFindings, type RuleStep } from '../../engine/rule.js';
import type { SampleFacts } from '../../engine/sample-facts.js';
import type { RuleId } from '../../violations/rule-ids.js';
import type { Measured, PlaceRef } from '../../violations/violation.js';
import { confidenceOf } from './confidence.js';
import { type LastReport, shouldReport } from './report-throttle.js';
import { extendRun, extendRunInPlace, markRaised, type Run, startRun } from './run.js';

/** What a sustained-condition rule observes on one sample: null when the condition does not hold. */
export interface Observation<E> {
  readonly suspected: boolean;
  /** Fold this sample into the run's extra measurements. */
  readonly fold: (previous: E | null) => E;
  readonly place?: PlaceRef | null;
  /** Observations with different keys belong to different events (e.g. a new speed zone). */
  readonly key?: string;
}

export interface SustainedRuleSpec<E, C, X extends SampleFacts> {
  readonly id: RuleId;
  readonly pack: Pack;
  readonly legalBasis: readonly string[];
  readonly description: { readonly pt: string; readonly en: string };
  readonly penalty: RuleMeta<C>['penalty'];
  observe(ctx: X, config: C): Observation<E> | null;
  /**
   * Does the interval before this sample break the run though it is no gap (`general.maxGapS`),
   * e.g. a silence long enough to hide what the rule must see? A run then restarts here.
   */
  breaksBefore?(ctx: X, config: C): boolean;
  /** Has the run become a violation? */
  qualifies(run: Run<E>, config: C): boolean;
  measured(run: Run<E>, config: C): Measured;
}

interface State<E> {
  readonly run: Run<E> | null;
  readonly key: string | null;
  readonly place: PlaceRef | null;
  readonly reported: LastReport | null;
  /**
   * The run was made by this rule's step for this vehicle (never restored from a checkpoint,
   * never handed out), so a later sample extends it in place (`extendRunInPlace`): a run was a
   * new 15-field object per sample of a vehicle in it (the no-contract runs of every charter bus
   * without one), outliving a young-generation collection and copied or promoted by it. Nothing
   * else holds it: findings copy its figures, `close` (and so a provisional close) only reads it,
   * and a checkpoint takes a copy without the flag (`forCheckpoint`, the shape it always had), so
   * a restored run is copied once before it is extended.
   */
  readonly own?: boolean;
}

/**
 * A rule of the form "condition held for at least N seconds / N metres (while moving)": over
 * capacity, unsafe driving, tachograph missing or disagreeing, off route, ride without meter,
 * waiting at a stand without a place. Raised once the run qualifies, updated while it lasts,
 * final when the condition stops, the observation key changes, telemetry has a gap, or the
 * vehicle goes silent.
 */
export function sustainedRule<E, C, X extends SampleFacts>(spec: SustainedRuleSpec<E, C, X>): PackRule<C, X> {
  const finding = (run: Run<E>, place: PlaceRef | null, phase: 'ongoing' | 'final', config: C): Finding => ({
    ruleId: spec.id,
    eventId: run.eventId,
    phase,
    startedAt: run.startMs,
    endedAt: run.lastMs,
    lat: run.startLat,
    lon: run.startLon,
    place,
    measured: spec.measured(run, config),
    confidence: confidenceOf(run.suspected),
    variant: null,
    driverId: run.driverId,
  });

  // Most samples hold no condition and have no run open: answer them without allocating.
  const idleState: State<E> = { run: null, key: null, place: null, reported: null, own: false };
  const idle: RuleStep<State<E>> = { state: idleState, findings: noFindings };

  return defineRule<State<E>, C, X>({
    id: spec.id,
    pack: spec.pack,
    legalBasis: spec.legalBasis,
    description: spec.description,
    penalty: spec.penalty,
    init: () => idleState,
    forCheckpoint: (state) => ({
      run: state.run === null ? null : { ...state.run },
      key: state.key,
      place: state.place,
      reported: state.reported,
    }),
    step(state, ctx, config) {
      const observation = spec.observe(ctx, config);
      if (observation === null && state.run === null) return idle;
      // At most the end of the previous run and the news of this one; most steps have neither.
      let ended: Finding | null = null;
      let news: Finding | null = null;
      let run = state.run;
      const key = observation?.key ?? null;
      const breaks =
        ctx.gapBefore || observation === null || key !== state.key || spec.breaksBefore?.(ctx, config) === true;
      let reported = state.reported;
      if (run && breaks) {
        if (run.raised) ended = finding(run, state.place, 'final', config);
        run = null;
        reported = null;
      }
      if (!observation) return { state: idleState, findings: ended === null ? noFindings : [ended] };
      const place = observation.place ?? (run ? state.place : null);
      // Telemetry of this stretch arrived out of order: the run may hide a break it cannot see.
      const suspected = observation.suspected || ctx.lateDropped > 0;
      // This rule's own run (see `State`) is extended in place; any other is copied once.
      const inPlace = run !== null && state.own === true && run === state.run;
      if (run === null) run = startRun(ctx, observation.suspected, observation.fold(null));
      else if (inPlace) extendRunInPlace(run, ctx, suspected, observation.fold(run.extra));
      else run = extendRun(run, ctx, suspected, observation.fold(run.extra));
      if (spec.qualifies(run, config)) {
        const confidence = confidenceOf(run.suspected);
        if (shouldReport(reported, run.lastMs, confidence, null, ctx.general.updateIntervalS)) {
          news = finding(run, place, 'ongoing', config);
          reported = { endedAt: run.lastMs, confidence, variant: null };
        }
        // A run already raised carries the flag on: set it only the first time.
        if (!run.raised) run = inPlace ? markRaised(run) : { ...run, raised: true };
      }
      if (inPlace && news === null && ended === null && key === state.key && place === state.place) return keepState;
      const findings = ended === null ? (news === null ? noFindings : [news]) : news === null ? [ended] : [ended, news];
      return { state: { run, key, place, reported, own: true }, findings };
    },
    close(state, _info, config) {
      const findings: Finding[] = [];
      if (state.run?.raised) findings.push(finding(state.run, state.place, 'final', config));
      return { state: { run: null, key: null, place: null, reported: null }, findings };
    },
  });
}
