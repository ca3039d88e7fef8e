import type { Pack } from '@vigia/core';
import type { Finding, PackRule, RuleMeta } from '../../engine/rule.js';
import { defineRule, keepState, noFindings } from '../../engine/rule.js';
import type { SampleFacts } from '../../engine/sample-facts.js';
import type { LocalDate } from '../../time/local-time.js';
import type { RuleId } from '../../violations/rule-ids.js';
import type { Measured } from '../../violations/violation.js';
import { confidenceOf } from './confidence.js';
import { type LastReport, shouldReport } from './report-throttle.js';

/** A registry fact that makes operating the vehicle an infraction (permit expired, too old ...). */
export interface RegistryBreach {
  readonly variant: string | null;
  readonly suspected: boolean;
  readonly measured: Measured;
  /**
   * The breach's identity, stable for as long as the registry leaves it unresolved: what lapsed
   * and since when (e.g. `permit:2026-03-01:past-grace`, `div:2026-01-31`). It is the event id,
   * so every later sample, day or engine run that finds the same breach lands on the same
   * violation. Default: the variant, plus `subKey`.
   */
  readonly key?: string;
  /** Distinguishes several breaches of one rule (e.g. the unregistered driver's id). */
  readonly subKey?: string;
}

export interface RegistryStateRuleSpec<C, X extends SampleFacts> {
  readonly id: RuleId;
  readonly pack: Pack;
  readonly legalBasis: readonly string[];
  readonly description: { readonly pt: string; readonly en: string };
  readonly penalty: RuleMeta<C>['penalty'];
  /** The breach on this sample's date, judged against the registry in force at the sample. */
  check(ctx: X, config: C): RegistryBreach | null;
  /** Does this sample count as operating? Default: moving. */
  operating?(ctx: X, config: C): boolean;
}
/** Former name of the spec (the rule was once split per local day). */
export type DailyRegistryRuleSpec<C, X extends SampleFacts> = RegistryStateRuleSpec<C, X>;

/** The inputs a registry check reads; the breach is recomputed only when one of them changes. */
interface CheckInputs {
  readonly vehicle: unknown;
  readonly operator: unknown;
  readonly date: LocalDate;
  readonly driverId: string | null;
  readonly registry: unknown;
}

/** Does the sample present the same inputs as `a` (compared field by field, nothing allocated)? */
const sameInputs = (a: CheckInputs | null, ctx: SampleFacts): boolean =>
  a !== null &&
  a.vehicle === ctx.vehicle &&
  a.operator === ctx.operator &&
  a.date === ctx.local.date &&
  a.driverId === ctx.sample.tachoDriverId &&
  a.registry === ctx.registry;

export const breachKey = (b: RegistryBreach): string =>
  b.key ?? [b.variant ?? 'breach', ...(b.subKey ? [b.subKey] : [])].join(':');

interface OpenBreach {
  readonly key: string;
  readonly startMs: number;
  readonly lastMs: number;
  readonly lat: number;
  readonly lon: number;
  readonly breach: RegistryBreach;
  readonly driverId: string | null;
  readonly lastDate: LocalDate;
  readonly reported: LastReport | null;
}

/**
 * Registry-state rules (permit, inspection, D.I.V., age, registration, driver): operating while
 * the registry shows a breach is ONE continuing infraction, not one per day or per trip. The
 * event starts at the first operating sample with the breach and grows with every later one —
 * across local days and nights parked — until the breach ends: the registry is put in order, or
 * the breach becomes another one (a new lapse date, the grace period over). The event id is the
 * breach's key (what lapsed and since when), so after the engine closes an idle vehicle, or
 * after a restart, the next operating sample with the same breach finds the same key and the
 * store's upsert grows the same violation (its start stays the first one stored). Counting one
 * infraction per day would turn three days of driving with an expired permit into three group-C
 * infractions and open cancellation under DF Art. 53 §3.
 */
export function registryStateRule<C, X extends SampleFacts>(spec: RegistryStateRuleSpec<C, X>): PackRule<C, X> {
  const finding = (open: OpenBreach, phase: 'ongoing' | 'final'): Finding => ({
    ruleId: spec.id,
    eventId: open.key,
    phase,
    startedAt: open.startMs,
    endedAt: open.lastMs,
    lat: open.lat,
    lon: open.lon,
    place: null,
    // Only what stays true when the store grows the violation from a later engine run: its
    // start is the first one stored, so no "first date" or day count of this run goes here.
    measured: { ...open.breach.measured, lastOperatingDate: open.lastDate },
    confidence: confidenceOf(open.breach.suspected),
    variant: open.breach.variant,
    driverId: open.driverId,
  });

  interface State {
    readonly open: OpenBreach | null;
    readonly inputs: CheckInputs | null;
    readonly breach: RegistryBreach | null;
  }
  return defineRule<State, C, X>({
    id: spec.id,
    pack: spec.pack,
    legalBasis: spec.legalBasis,
    description: spec.description,
    penalty: spec.penalty,
    init: () => ({ open: null, inputs: null, breach: null }),
    // `inputs` holds the registry's live objects, only to compare them by identity: a restored
    // rule recomputes the breach from its first sample, as after a registry change.
    forCheckpoint: (state) => ({ ...state, inputs: null }),
    step(state, ctx, config) {
      const operating = spec.operating ? spec.operating(ctx, config) : ctx.moving;
      if (!operating) return keepState;
      // At most the end of the previous breach and the news of this one; most steps have neither.
      let ended: Finding | null = null;
      let news: Finding | null = null;
      let open = state.open;
      // A registry fact changes with the registry, the day or the driver — not with every sample.
      const same = sameInputs(state.inputs, ctx);
      const inputs: CheckInputs =
        same && state.inputs !== null
          ? state.inputs
          : {
              vehicle: ctx.vehicle,
              operator: ctx.operator,
              date: ctx.local.date,
              driverId: ctx.sample.tachoDriverId,
              registry: ctx.registry,
            };
      const breach = same ? state.breach : spec.check(ctx, config);
      if (!breach) {
        // Nothing open and nothing changed: the state stays as it is.
        if (!open && same) return keepState;
        return { state: { open: null, inputs, breach: null }, findings: open ? [finding(open, 'final')] : noFindings };
      }
      const key = breachKey(breach);
      if (open && open.key !== key) {
        ended = finding(open, 'final');
        open = null;
      }
      const date = ctx.local.date;
      open = open
        ? {
            key: open.key,
            startMs: open.startMs,
            lastMs: ctx.ms,
            lat: open.lat,
            lon: open.lon,
            breach,
            driverId: ctx.sample.tachoDriverId ?? open.driverId,
            lastDate: date,
            reported: open.reported,
          }
        : {
            key,
            startMs: ctx.ms,
            lastMs: ctx.ms,
            lat: ctx.sample.lat,
            lon: ctx.sample.lon,
            breach,
            driverId: ctx.sample.tachoDriverId,
            lastDate: date,
            reported: null,
          };
      const confidence = confidenceOf(breach.suspected);
      if (shouldReport(open.reported, ctx.ms, confidence, breach.variant, ctx.general.updateIntervalS)) {
        news = finding(open, 'ongoing');
        open = { ...open, reported: { endedAt: ctx.ms, confidence, variant: breach.variant } };
      }
      const findings = ended === null ? (news === null ? noFindings : [news]) : news === null ? [ended] : [ended, news];
      return { state: { open, inputs, breach }, findings };
    },
    close(state) {
      return {
        state: { open: null, inputs: null, breach: null },
        findings: state.open ? [finding(state.open, 'final')] : [],
      };
    },
  });
}

/** Former name, for rules written against it: the same continuing registry-state rule. */
export const dailyRegistryRule = registryStateRule;
