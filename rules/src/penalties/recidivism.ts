import type { Pack } from '@vigia/core';
import { z } from 'zod';
import { addYears, type LocalDate, localDateOf } from '../time/local-time.js';
import type { RuleId } from '../violations/rule-ids.js';
import { roundBrl } from './price.js';

/**
 * Recidivism and escalation, as pure functions of the violation being assessed and the earlier
 * violations the store holds. The store may pass a superset (all of an operator's, a vehicle's
 * or a permit's history): each pack filters by its own subject and window.
 *
 * - SP (Decreto, Art. 27): the same infraction by the same company within one year doubles the
 *   fine. "Same infraction" = the same article and item the fine rests on (`penalty.item`, which
 *   a rule picks per variant: Art. 26 VI and Art. 26 VII are different infractions even when
 *   FRET_UNREGISTERED_VEHICLE reports both, and FRET_INSPECTION_EXPIRED's Art. 26 VII is the same
 *   infraction as an unregistered vehicle's Art. 26 VII). Under a catch-all item ("infringir
 *   qualquer das disposições", Art. 23 V: `recidivism.catchAllItems`) the infraction is the
 *   provision infringed, i.e. the rule. "Company" = operator; one year = the same calendar date a
 *   year earlier, inclusive (Lei 810/1949 counts a year to the same date).
 * - DF (Art. 53): counted over 2 years, apart for the permit and for each driver's *matrícula*:
 *   an infraction committed by a registered driver other than the permit holder (`matricula`)
 *   counts against that driver's matrícula only — the holder answers for it jointly (Art. 55) but
 *   it is not counted twice; every other infraction counts against the permit. The 6th group-A,
 *   4th group-B, 3rd group-C infraction, any group-D infraction, or a 4th infraction spanning more
 *   than one group → cancellation of that permit or matrícula. Art. 56: the record is cleared when
 *   2 consecutive years pass after a penalty with no new infraction.
 * - Belém: Art. 58 classifies into groups I–IV but sets no recidivism rule; counts per group
 *   within a configurable window are reported for the officer, with no escalation.
 *
 * Only earlier violations a reviewer has upheld count by default (`countStatuses`): Art. 27 and
 * Art. 53 speak of infractions *punished*, and an open or dismissed alert punishes nobody.
 */

export const workflowStatuses = ['open', 'confirmed', 'dismissed', 'notified'] as const;
export type WorkflowStatus = (typeof workflowStatuses)[number];

export interface PriorViolation {
  readonly key?: string;
  readonly ruleId: RuleId;
  readonly pack: Pack;
  /** Infraction group (DF A–D, Belém I–IV), null when the rule has none. */
  readonly group: string | null;
  readonly occurredAt: Date;
  readonly vehicleId: string;
  readonly operatorId: string | null;
  readonly permitNumber: string | null;
  readonly status: WorkflowStatus;
  /** The article and item the fine rested on (`penalty.item`); absent: compared by rule id. */
  readonly item?: string | null;
  /**
   * DF: the driver whose *matrícula* the infraction counts against (a registered driver other
   * than the permit holder); null or absent: the permit.
   */
  readonly matricula?: string | null;
}

export interface AssessedViolation {
  readonly key?: string;
  readonly ruleId: RuleId;
  readonly pack: Pack;
  readonly startedAt: Date;
  readonly vehicleId: string;
  readonly operatorId: string | null;
  readonly permitNumber: string | null;
  readonly penalty: {
    readonly group: string | null;
    readonly amountBrl: number | null;
    /** The article and item the fine rests on (SP Art. 27 compares it). */
    readonly item?: string | null;
  };
  /** DF: as `PriorViolation.matricula`. */
  readonly matricula?: string | null;
}

export interface Escalation {
  readonly kind: 'double-fine' | 'cancellation';
  /** e.g. `Art. 27`, `Art. 53 §2`. */
  readonly basis: string;
  readonly detail: string;
}

export interface RecidivismAssessment {
  /** Earlier violations that count (same subject, inside the window, not cleared). */
  readonly count: number;
  readonly windowDays: number;
  /** First local date of the window. */
  readonly windowStart: LocalDate;
  /** Counts per group including the violation assessed (DF, Belém). */
  readonly byGroup: Readonly<Record<string, number>>;
  /** DF Art. 56: violations before this date no longer count. */
  readonly clearedBefore: LocalDate | null;
  readonly escalation: Escalation | null;
  /** Applied to the fine: 2 under SP Art. 27, else 1. */
  readonly multiplier: number;
  readonly amountBrl: number | null;
  /** Keys of the earlier violations counted (when the store supplied keys). */
  readonly counted: readonly string[];
}

export const recidivismConfigSchema = z.object({
  windowYears: z.number().int().positive().meta({ description: 'Window in calendar years.' }),
  countStatuses: z.array(z.enum(workflowStatuses)).default(['confirmed', 'notified']).meta({
    description: 'Workflow statuses of earlier violations that count as punished infractions.',
    interpretation: true,
  }),
});
export type RecidivismConfig = z.output<typeof recidivismConfigSchema>;

/** SP Art. 27 adds which items are catch-alls (see `sameSpInfraction`). */
export const spRecidivismConfigSchema = recidivismConfigSchema.extend({
  catchAllItems: z.array(z.string()).default(['Art. 23 V']).meta({
    description:
      "Items that fine the breach of any provision of the regulation ('infringir qualquer das disposições'): under them the same infraction is the same provision infringed (the same rule), not merely the same item.",
    interpretation: true,
    basis: 'Art. 23 V; Art. 27',
  }),
});
export type SpRecidivismConfig = z.output<typeof spRecidivismConfigSchema>;

/**
 * SP Art. 27 "a mesma infração": the same article and item; under a catch-all item, the same
 * provision infringed (the rule). A violation stored without its item is compared by rule id.
 */
export function sameSpInfraction(
  current: AssessedViolation,
  prior: PriorViolation,
  catchAllItems: readonly string[],
): boolean {
  const item = current.penalty.item ?? null;
  const priorItem = prior.item ?? null;
  if (item === null || priorItem === null) return prior.ruleId === current.ruleId;
  if (item !== priorItem) return false;
  return !catchAllItems.includes(item) || prior.ruleId === current.ruleId;
}

export const dfEscalationThresholdsSchema = z.object({
  A: z
    .number()
    .int()
    .positive()
    .default(6)
    .meta({ description: 'Group-A infractions within 2 years that cancel the permit.', basis: 'Art. 53 §1' }),
  B: z
    .number()
    .int()
    .positive()
    .default(4)
    .meta({ description: 'Group-B infractions within 2 years that cancel the permit.', basis: 'Art. 53 §2' }),
  C: z
    .number()
    .int()
    .positive()
    .default(3)
    .meta({ description: 'Group-C infractions within 2 years that cancel the permit.', basis: 'Art. 53 §3' }),
  D: z
    .number()
    .int()
    .positive()
    .default(1)
    .meta({ description: 'Group-D infractions that cancel the permit.', basis: 'Art. 53 §4' }),
  mixed: z.number().int().positive().default(4).meta({
    description: 'Infractions in more than one group within 2 years that cancel the permit.',
    basis: 'Art. 53 §5',
  }),
  clearingYears: z
    .number()
    .int()
    .positive()
    .default(2)
    .meta({ description: 'Years without a new infraction that clear the record.', basis: 'Art. 56' }),
});
export type DfEscalationThresholds = z.output<typeof dfEscalationThresholdsSchema>;

interface Windowed {
  readonly date: LocalDate;
  readonly prior: PriorViolation;
}

function inWindow(
  current: AssessedViolation,
  priors: readonly PriorViolation[],
  config: RecidivismConfig,
  timeZone: string,
  sameSubject: (p: PriorViolation) => boolean,
): { windowStart: LocalDate; date: LocalDate; items: Windowed[] } {
  const date = localDateOf(current.startedAt, timeZone);
  const windowStart = addYears(date, -config.windowYears);
  const currentMs = current.startedAt.getTime();
  const items = priors
    .filter(
      (p) =>
        p.pack === current.pack &&
        (current.key === undefined || p.key !== current.key) &&
        config.countStatuses.includes(p.status) &&
        sameSubject(p) &&
        p.occurredAt.getTime() < currentMs,
    )
    .map((prior) => ({ date: localDateOf(prior.occurredAt, timeZone), prior }))
    .filter((w) => w.date >= windowStart)
    .sort((a, b) => a.prior.occurredAt.getTime() - b.prior.occurredAt.getTime());
  return { windowStart, date, items };
}

const windowDays = (start: LocalDate, end: LocalDate): number =>
  Math.round((Date.parse(`${end}T00:00:00Z`) - Date.parse(`${start}T00:00:00Z`)) / 86_400_000);

const keysOf = (items: readonly Windowed[]): string[] => items.flatMap((w) => (w.prior.key ? [w.prior.key] : []));

/** SP Art. 27: same infraction (article and item), same company (operator), within one year → fine doubled. */
export function assessSpRecidivism(
  current: AssessedViolation,
  priors: readonly PriorViolation[],
  config: RecidivismConfig & { readonly catchAllItems?: readonly string[] },
  timeZone: string,
): RecidivismAssessment {
  const catchAll = config.catchAllItems ?? ['Art. 23 V'];
  const { windowStart, date, items } = inWindow(
    current,
    priors,
    config,
    timeZone,
    (p) => current.operatorId !== null && p.operatorId === current.operatorId && sameSpInfraction(current, p, catchAll),
  );
  const recidivist = items.length > 0;
  return {
    count: items.length,
    windowDays: windowDays(windowStart, date),
    windowStart,
    byGroup: {},
    clearedBefore: null,
    escalation: recidivist
      ? {
          kind: 'double-fine',
          basis: 'Art. 27',
          detail: `same infraction by the same company on ${items[items.length - 1]?.date} (within one year): fine doubled`,
        }
      : null,
    multiplier: recidivist ? 2 : 1,
    amountBrl: current.penalty.amountBrl === null ? null : roundBrl(current.penalty.amountBrl * (recidivist ? 2 : 1)),
    counted: keysOf(items),
  };
}

const subjectOf = (v: { permitNumber: string | null; vehicleId: string }): string =>
  v.permitNumber !== null ? `permit:${v.permitNumber}` : `vehicle:${v.vehicleId}`;

/** DF Art. 53: the permit, or the registered driver's *matrícula* the infraction counts against. */
export const dfSubjectOf = (v: {
  permitNumber: string | null;
  vehicleId: string;
  matricula?: string | null | undefined;
}): string => (v.matricula ? `matricula:${v.matricula}` : subjectOf(v));

const subjectName = (subject: string): string =>
  subject.startsWith('matricula:') ? `matrícula of driver ${subject.slice(10)}` : 'permit';

/** DF Art. 53 (escalation to cancellation) and Art. 56 (clearing), per permit and per matrícula. */
export function assessDfEscalation(
  current: AssessedViolation,
  priors: readonly PriorViolation[],
  config: RecidivismConfig,
  thresholds: DfEscalationThresholds,
  timeZone: string,
): RecidivismAssessment {
  const subject = dfSubjectOf(current);
  const { windowStart, date, items } = inWindow(current, priors, config, timeZone, (p) => dfSubjectOf(p) === subject);
  // Art. 56: a run of `clearingYears` with no infraction clears everything before it.
  let clearedBefore: LocalDate | null = null;
  const dates = [...items.map((w) => w.date), date];
  for (let i = 0; i + 1 < dates.length; i++) {
    const a = dates[i];
    const b = dates[i + 1];
    if (a !== undefined && b !== undefined && addYears(a, thresholds.clearingYears) <= b) clearedBefore = b;
  }
  const counted = clearedBefore === null ? items : items.filter((w) => w.date >= (clearedBefore as LocalDate));
  const byGroup: Record<string, number> = {};
  for (const g of [...counted.map((w) => w.prior.group), current.penalty.group]) {
    if (g !== null) byGroup[g] = (byGroup[g] ?? 0) + 1;
  }
  let escalation: Escalation | null = null;
  const group = current.penalty.group;
  const paragraph: Record<string, string> = { A: '§1', B: '§2', C: '§3', D: '§4' };
  if (group !== null && (group === 'A' || group === 'B' || group === 'C' || group === 'D')) {
    const n = byGroup[group] ?? 0;
    if (n >= thresholds[group]) {
      escalation = {
        kind: 'cancellation',
        basis: `Art. 53 ${paragraph[group]}`,
        detail: `${n} group-${group} infractions within ${thresholds.clearingYears} years (threshold ${thresholds[group]}): cancellation of the ${subjectName(subject)}`,
      };
    } else {
      const total = Object.values(byGroup).reduce((a, b) => a + b, 0);
      const groups = Object.keys(byGroup).length;
      if (total >= thresholds.mixed && groups > 1) {
        escalation = {
          kind: 'cancellation',
          basis: 'Art. 53 §5',
          detail: `${total} infractions across ${groups} groups within 2 years (threshold ${thresholds.mixed}): cancellation of the ${subjectName(subject)}`,
        };
      }
    }
  }
  return {
    count: counted.length,
    windowDays: windowDays(windowStart, date),
    windowStart,
    byGroup,
    clearedBefore,
    escalation,
    multiplier: 1,
    amountBrl: current.penalty.amountBrl,
    counted: keysOf(counted),
  };
}

/** Belém: group counts within the window, for information (the law sets no escalation). */
export function assessBelemRecidivism(
  current: AssessedViolation,
  priors: readonly PriorViolation[],
  config: RecidivismConfig,
  timeZone: string,
): RecidivismAssessment {
  const subject = subjectOf(current);
  const { windowStart, date, items } = inWindow(current, priors, config, timeZone, (p) => subjectOf(p) === subject);
  const byGroup: Record<string, number> = {};
  for (const g of [...items.map((w) => w.prior.group), current.penalty.group]) {
    if (g !== null) byGroup[g] = (byGroup[g] ?? 0) + 1;
  }
  return {
    count: items.filter((w) => w.prior.ruleId === current.ruleId).length,
    windowDays: windowDays(windowStart, date),
    windowStart,
    byGroup,
    clearedBefore: null,
    escalation: null,
    multiplier: 1,
    amountBrl: current.penalty.amountBrl,
    counted: keysOf(items),
  };
}
