import type { Pack } from '@vigia/core';
import type { RuleId } from '../violations/rule-ids.js';
import type { Confidence, Measured, PenaltySpec, PlaceRef } from '../violations/violation.js';

/**
 * The shape of a rule. A rule is a pure function of (its state, the sample facts with the
 * registry, its pack configuration) that returns its next state and its findings; the engine
 * keeps the state between samples and turns findings into violation records. Its legal basis,
 * descriptions and penalty sit beside the function, in the same definition.
 */

export interface RuleMeta<C> {
  readonly id: RuleId;
  readonly pack: Pack;
  readonly legalBasis: readonly string[];
  readonly description: { readonly pt: string; readonly en: string };
  /** The fine the regulation attaches (the variant selects among a rule's sub-cases). */
  penalty(config: C, variant: string | null): PenaltySpec;
}

/** A rule's statement about one event (the engine adds vehicle, penalty and evidence). */
export interface Finding {
  readonly ruleId: RuleId;
  /** Unique among the rule's events for the vehicle: with the vehicle and rule it makes the key. */
  readonly eventId: string;
  /** Defaults to the vehicle of the sample; cross-vehicle (stand) rules name it. */
  readonly vehicleId?: string;
  /**
   * `ongoing`: the event may still grow; `final`: it is over; `withdrawn`: an earlier
   * provisional finding with this eventId was not a violation after all.
   */
  readonly phase: 'ongoing' | 'final' | 'withdrawn';
  readonly startedAt: number;
  readonly endedAt: number;
  /** Where the event happened; null when unknown (a dispatch record without position). */
  readonly lat: number | null;
  readonly lon: number | null;
  readonly place: PlaceRef | null;
  readonly measured: Measured;
  readonly confidence: Confidence;
  readonly variant: string | null;
  /** Multiplies the penalty's units (SP Art. 29 I: 10 ORTN *each* boarding). */
  readonly unitsFactor?: number;
  /** Set when the evidence is the whole meter trip. */
  readonly trip?: { readonly id: string; readonly startedAt: number; readonly endedAt: number } | null;
  readonly driverId?: string | null;
  readonly reason?: string;
}

export interface RuleStep<S> {
  readonly state: S;
  readonly findings: readonly Finding[];
}

/**
 * What a rule's step returns when its state stays as it was and it finds nothing — most samples
 * of most rules. One shared answer rather than a fresh `{ state, findings }` per rule per sample:
 * every byte allocated brings the next young-generation collection closer.
 */
export const keepState: { readonly keep: true } = Object.freeze({ keep: true });

export interface CloseInfo {
  /** Last instant the vehicle was seen (epoch ms). */
  readonly lastMs: number;
  readonly reason: 'idle' | 'shutdown' | 'pack-changed';
}

export interface RuleDefinition<S, C, X> extends RuleMeta<C> {
  init(): S;
  /**
   * The state as it goes into a checkpoint, when it holds more than data (a cache of the
   * registry's objects): the default is the state itself, which must then be plain data.
   */
  forCheckpoint?(state: S): S;
  step(state: S, ctx: X, config: C): RuleStep<S> | typeof keepState;
  /** The vehicle went silent (or the engine stops): finish what is open. */
  close(state: S, info: CloseInfo, config: C): RuleStep<S>;
}

/**
 * A rule with its state type hidden, so a pack can list rules of different state types: the
 * definition's own functions, called by the pack's loop (`stepRules`) with the state the vehicle
 * holds for it.
 */
export interface PackRule<C, X> extends RuleMeta<C> {
  init(): unknown;
  step(state: unknown, ctx: X, config: C): RuleStep<unknown> | typeof keepState;
  close(state: unknown, info: CloseInfo, config: C): RuleStep<unknown>;
  /** The state as data, for a checkpoint (engine/checkpoint.ts); rule states hold no functions. */
  forCheckpoint(state: unknown): unknown;
}

const asData = <S>(state: S): S => state;

export function defineRule<S, C, X>(definition: RuleDefinition<S, C, X>): PackRule<C, X> {
  // The state's type is the definition's business: the pack hands back what the rule returned.
  return {
    id: definition.id,
    pack: definition.pack,
    legalBasis: definition.legalBasis,
    description: definition.description,
    penalty: (config, variant) => definition.penalty(config, variant),
    init: definition.init,
    step: definition.step as PackRule<C, X>['step'],
    close: definition.close as PackRule<C, X>['close'],
    forCheckpoint: (definition.forCheckpoint ?? asData) as PackRule<C, X>['forCheckpoint'],
  };
}

/**
 * One vehicle's states of a pack's rules, `states[i]` for `rules[i]`. The pack steps them in one
 * loop over the same fixed list for every vehicle: the states are the only per-vehicle part (no
 * closure or slot object per rule and vehicle, one call per rule and sample).
 */
export const initRuleStates = <C, X>(rules: readonly PackRule<C, X>[]): unknown[] => rules.map((r) => r.init());

/** Steps every rule with the sample; the findings in rule order (the shared empty list when none). */
export function stepRules<C, X>(
  rules: readonly PackRule<C, X>[],
  states: unknown[],
  ctx: X,
  config: C,
): readonly Finding[] {
  let findings: Finding[] | null = null;
  for (let i = 0; i < rules.length; i++) {
    const result = (rules[i] as PackRule<C, X>).step(states[i], ctx, config);
    // By identity: one comparison, whatever shape of answer the rule returned.
    if (result === keepState) continue;
    const step = result as RuleStep<unknown>;
    states[i] = step.state;
    const produced = step.findings;
    if (produced.length === 0) continue;
    findings ??= [];
    for (let j = 0; j < produced.length; j++) findings.push(produced[j] as Finding);
  }
  return findings ?? noFindings;
}

/** The vehicle went silent (or the engine stops): every rule finishes what is open. */
export function closeRules<C, X>(
  rules: readonly PackRule<C, X>[],
  states: unknown[],
  info: CloseInfo,
  config: C,
): Finding[] {
  const findings: Finding[] = [];
  for (let i = 0; i < rules.length; i++) {
    const result = (rules[i] as PackRule<C, X>).close(states[i], info, config);
    states[i] = result.state;
    findings.push(...result.findings);
  }
  return findings;
}

/** What `closeRules` would find, leaving the states as they are (a provisional close: the vehicle may resume). */
export function peekCloseRules<C, X>(
  rules: readonly PackRule<C, X>[],
  states: readonly unknown[],
  info: CloseInfo,
  config: C,
): Finding[] {
  return rules.flatMap((rule, i) => rule.close(states[i], info, config).findings);
}

/** The rules' states by rule id (a vehicle's checkpoint). */
export function exportRuleStates<C, X>(
  rules: readonly PackRule<C, X>[],
  states: readonly unknown[],
): { ruleId: string; state: unknown }[] {
  return rules.map((rule, i) => ({ ruleId: rule.id, state: rule.forCheckpoint(states[i]) }));
}

/**
 * Restores the states from a checkpoint, by rule id: a rule enabled since the checkpoint starts
 * fresh, a rule disabled since is ignored. Trusted: written by `exportRuleStates` of these rules,
 * inside a versioned, zod-checked checkpoint.
 */
export function importRuleStates<C, X>(
  rules: readonly PackRule<C, X>[],
  states: unknown[],
  saved: readonly { readonly ruleId: string; readonly state: unknown }[],
): void {
  const byId = new Map(saved.map((s) => [s.ruleId, s.state]));
  for (let i = 0; i < rules.length; i++) {
    const id = (rules[i] as PackRule<C, X>).id;
    if (byId.has(id)) states[i] = byId.get(id);
  }
}

export const noFindings: readonly Finding[] = [];
