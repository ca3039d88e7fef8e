import type { Pack } from '@vigia/core';
import type { Finding, PackRule, RuleMeta } from '../../engine/rule.js';
import { defineRule, keepState, noFindings } from '../../engine/rule.js';
import type { SampleFacts, Writable } from '../../engine/sample-facts.js';
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

/** `open` carried on by a later sample: the same key, start and place, with what that sample changes. */
const carried = (
  open: OpenBreach,
  lastMs: number,
  breach: RegistryBreach,
  driverId: string | null,
  lastDate: LocalDate,
  reported: LastReport | null,
): OpenBreach => ({
  key: open.key,
  startMs: open.startMs,
  lastMs,
  lat: open.lat,
  lon: open.lon,
  breach,
  driverId,
  lastDate,
  reported,
});

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
  /** `lastMs`: the open breach's last operating sample (the state's, which is newer than the breach's own). */
  const finding = (open: OpenBreach, lastMs: number, phase: 'ongoing' | 'final'): Finding => ({
    ruleId: spec.id,
    eventId: open.key,
    phase,
    startedAt: open.startMs,
    endedAt: lastMs,
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

  /**
   * `lastMs` is the open breach's last operating sample. It is the only thing most operating
   * samples change (the registry's inputs, hence the breach, its date and its driver, stay the
   * same), so it lives here rather than in the breach: a sample then replaces this small object,
   * not the breach's nine fields as well. The breach's own `lastMs` is where it was last rebuilt;
   * a state restored from a checkpoint has none of its own (`lastOf`), as checkpoints keep the
   * breach's shape (`forCheckpoint` folds it back in).
   */
  interface State {
    readonly open: OpenBreach | null;
    readonly inputs: CheckInputs | null;
    readonly breach: RegistryBreach | null;
    readonly lastMs?: number;
  }
  const lastOf = (state: State, open: OpenBreach): number => state.lastMs ?? open.lastMs;
  const closed: State = { open: null, inputs: null, breach: null, lastMs: 0 };
  return defineRule<State, C, X>({
    id: spec.id,
    pack: spec.pack,
    legalBasis: spec.legalBasis,
    description: spec.description,
    penalty: spec.penalty,
    init: () => ({ open: null, inputs: null, breach: null, lastMs: 0 }),
    // `inputs` holds the registry's live objects, only to compare them by identity: a restored
    // rule recomputes the breach from its first sample, as after a registry change. The breach's
    // last operating sample goes back into the breach: the checkpoint's shape is the one it
    // always had.
    forCheckpoint: (state) => ({
      open:
        state.open === null
          ? null
          : {
              key: state.open.key,
              startMs: state.open.startMs,
              lastMs: lastOf(state, state.open),
              lat: state.open.lat,
              lon: state.open.lon,
              breach: state.open.breach,
              driverId: state.open.driverId,
              lastDate: state.open.lastDate,
              reported: state.open.reported,
            },
      inputs: null,
      breach: state.breach,
    }),
    step(state, ctx, config) {
      const operating = spec.operating ? spec.operating(ctx, config) : ctx.moving;
      if (!operating) return keepState;
      // A registry fact changes with the registry, the day or the driver — not with every sample.
      const same = sameInputs(state.inputs, ctx);
      if (same && state.open !== null && state.breach !== null) {
        // The same breach as on the last operating sample, judged on the same inputs: its key,
        // date and driver are those of the open breach (set when the inputs last changed), so only
        // the last operating sample moves — and a report, every `updateIntervalS`.
        const open = state.open;
        const breach = state.breach;
        const confidence = confidenceOf(breach.suspected);
        if (!shouldReport(open.reported, ctx.ms, confidence, breach.variant, ctx.general.updateIntervalS)) {
          // Moved in place: a state with `inputs` was made by this step for this vehicle (a
          // checkpoint's has none, `forCheckpoint`), and nothing else holds it — `close` (and so a
          // provisional close) reads `lastMs` as it stands, a checkpoint copies it into the breach.
          // A new state per operating sample of a taxi with an open breach outlived a
          // young-generation collection and was copied or promoted by it.
          (state as Writable<State>).lastMs = ctx.ms;
          return keepState;
        }
        const reported = carried(open, ctx.ms, breach, open.driverId, open.lastDate, {
          endedAt: ctx.ms,
          confidence,
          variant: breach.variant,
        });
        return {
          state: { open: reported, inputs: state.inputs, breach, lastMs: ctx.ms },
          findings: [finding(reported, ctx.ms, 'ongoing')],
        };
      }
      // At most the end of the previous breach and the news of this one; most steps have neither.
      let ended: Finding | null = null;
      let news: Finding | null = null;
      let open = state.open;
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
        return {
          state: { open: null, inputs, breach: null, lastMs: ctx.ms },
          findings: open ? [finding(open, lastOf(state, open), 'final')] : noFindings,
        };
      }
      const key = breachKey(breach);
      if (open && open.key !== key) {
        ended = finding(open, lastOf(state, open), 'final');
        open = null;
      }
      const date = ctx.local.date;
      open = open
        ? carried(open, ctx.ms, breach, ctx.sample.tachoDriverId ?? open.driverId, date, open.reported)
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
        news = finding(open, ctx.ms, 'ongoing');
        open = carried(open, open.lastMs, open.breach, open.driverId, open.lastDate, {
          endedAt: ctx.ms,
          confidence,
          variant: breach.variant,
        });
      }
      const findings = ended === null ? (news === null ? noFindings : [news]) : news === null ? [ended] : [ended, news];
      return { state: { open, inputs, breach, lastMs: ctx.ms }, findings };
    },
    close(state) {
      return {
        state: closed,
        findings: state.open ? [finding(state.open, lastOf(state, state.open), 'final')] : [],
      };
    },
  });
}

/** Former name, for rules written against it: the same continuing registry-state rule. */
export const dailyRegistryRule = registryStateRule;
