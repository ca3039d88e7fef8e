import type { Pack } from '@vigia/core';
import type { Finding, PackRule, RuleMeta } from '../../engine/rule.js';
import { defineRule, noFindings } from '../../engine/rule.js';
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
  /** Distinguishes several events on one day (e.g. the unregistered driver's id). */
  readonly subKey?: string;
}

export interface DailyRegistryRuleSpec<C, X extends SampleFacts> {
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

/** The inputs a registry check reads; the breach is recomputed only when one of them changes. */
interface CheckInputs {
  readonly vehicle: unknown;
  readonly operator: unknown;
  readonly date: LocalDate;
  readonly driverId: string | null;
  readonly registry: unknown;
}

const sameInputs = (a: CheckInputs | null, b: CheckInputs): boolean =>
  a !== null &&
  a.vehicle === b.vehicle &&
  a.operator === b.operator &&
  a.date === b.date &&
  a.driverId === b.driverId &&
  a.registry === b.registry;

interface OpenDay {
  readonly date: LocalDate;
  readonly startMs: number;
  readonly lastMs: number;
  readonly lat: number;
  readonly lon: number;
  readonly breach: RegistryBreach;
  readonly driverId: string | null;
  readonly reported: LastReport | null;
}

/**
 * Registry-state rules fire once per vehicle per local day of operation (in the pack's time
 * zone): the event is "operated on day D while the permit / inspection / D.I.V. was not in
 * order". It starts at the first operating sample of the day with the breach, grows with every
 * later one, and is final when the day changes, the registry is put in order, or the vehicle
 * goes silent. A day is the natural unit of an enforcement notice for a standing condition and
 * keeps one record per day instead of one per sample or per trip.
 */
export function dailyRegistryRule<C, X extends SampleFacts>(spec: DailyRegistryRuleSpec<C, X>): PackRule<C, X> {
  const finding = (open: OpenDay, phase: 'ongoing' | 'final'): Finding => ({
    ruleId: spec.id,
    eventId: open.breach.subKey ? `${open.date}:${open.breach.subKey}` : open.date,
    phase,
    startedAt: open.startMs,
    endedAt: open.lastMs,
    lat: open.lat,
    lon: open.lon,
    place: null,
    measured: { ...open.breach.measured, operatingDate: open.date },
    confidence: confidenceOf(open.breach.suspected),
    variant: open.breach.variant,
    driverId: open.driverId,
  });

  interface State {
    readonly open: OpenDay | null;
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
    step(state, ctx, config) {
      const operating = spec.operating ? spec.operating(ctx, config) : ctx.moving;
      if (!operating && (state.open === null || state.open.date === ctx.local.date))
        return { state, findings: noFindings };
      let open = state.open;
      const findings: Finding[] = [];
      if (open && open.date !== ctx.local.date) {
        findings.push(finding(open, 'final'));
        open = null;
      }
      if (!operating) return { state: { ...state, open }, findings };
      // A registry fact changes with the registry, the day or the driver — not with every sample.
      const inputs: CheckInputs = {
        vehicle: ctx.vehicle,
        operator: ctx.operator,
        date: ctx.local.date,
        driverId: ctx.sample.tachoDriverId,
        registry: ctx.registry,
      };
      const breach = sameInputs(state.inputs, inputs) ? state.breach : spec.check(ctx, config);
      if (!breach) {
        if (open) findings.push(finding(open, 'final'));
        return { state: { open: null, inputs, breach: null }, findings };
      }
      if (open && (open.breach.subKey ?? null) !== (breach.subKey ?? null)) {
        findings.push(finding(open, 'final'));
        open = null;
      }
      open = open
        ? { ...open, lastMs: ctx.ms, breach, driverId: ctx.sample.tachoDriverId ?? open.driverId }
        : {
            date: ctx.local.date,
            startMs: ctx.ms,
            lastMs: ctx.ms,
            lat: ctx.sample.lat,
            lon: ctx.sample.lon,
            breach,
            driverId: ctx.sample.tachoDriverId,
            reported: null,
          };
      const confidence = confidenceOf(breach.suspected);
      if (shouldReport(open.reported, ctx.ms, confidence, breach.variant, ctx.general.updateIntervalS)) {
        findings.push(finding(open, 'ongoing'));
        open = { ...open, reported: { endedAt: ctx.ms, confidence, variant: breach.variant } };
      }
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
