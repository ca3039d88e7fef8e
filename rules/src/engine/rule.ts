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

/** A rule with its state type hidden, so a pack can list rules of different state types. */
export interface PackRule<C, X> extends RuleMeta<C> {
  createSlot(config: C): RuleSlot<X>;
}

/** One vehicle's instance of a rule: holds the state between samples. */
export interface RuleSlot<X> {
  readonly ruleId: RuleId;
  step(ctx: X): readonly Finding[];
  close(info: CloseInfo): readonly Finding[];
  /** What `close(info)` would find, leaving the state as it is (a provisional close: the vehicle may resume). */
  peekClose(info: CloseInfo): readonly Finding[];
  /** The rule's state as data, for a checkpoint (engine/checkpoint.ts); rule states hold no functions. */
  exportState(): unknown;
  /** Resume from a state `exportState` gave (of the same rule: the engine matches slots by rule id). */
  importState(state: unknown): void;
}

export function defineRule<S, C, X>(definition: RuleDefinition<S, C, X>): PackRule<C, X> {
  return {
    id: definition.id,
    pack: definition.pack,
    legalBasis: definition.legalBasis,
    description: definition.description,
    penalty: (config, variant) => definition.penalty(config, variant),
    createSlot(config: C): RuleSlot<X> {
      let state = definition.init();
      return {
        ruleId: definition.id,
        step(ctx: X) {
          const result = definition.step(state, ctx, config);
          // By identity: one comparison, whatever shape of answer the rule returned.
          if (result === keepState) return noFindings;
          const step = result as RuleStep<S>;
          state = step.state;
          return step.findings;
        },
        close(info: CloseInfo) {
          const result = definition.close(state, info, config);
          state = result.state;
          return result.findings;
        },
        peekClose(info: CloseInfo) {
          return definition.close(state, info, config).findings;
        },
        exportState: () => (definition.forCheckpoint ? definition.forCheckpoint(state) : state),
        importState(saved: unknown) {
          // Trusted: written by exportState of this rule, inside a versioned, zod-checked checkpoint.
          state = saved as S;
        },
      };
    },
  };
}

export const noFindings: readonly Finding[] = [];

/** The slots' states by rule id (a vehicle's checkpoint). */
export function exportSlots(slots: readonly RuleSlot<unknown>[]): { ruleId: string; state: unknown }[] {
  return slots.map((slot) => ({ ruleId: slot.ruleId, state: slot.exportState() }));
}

/**
 * Restores the slots from a checkpoint, by rule id: a rule enabled since the checkpoint starts
 * fresh, a rule disabled since is ignored.
 */
export function importSlots(
  slots: readonly RuleSlot<unknown>[],
  saved: readonly { readonly ruleId: string; readonly state: unknown }[],
): void {
  const byId = new Map(saved.map((s) => [s.ruleId, s.state]));
  for (const slot of slots) if (byId.has(slot.ruleId)) slot.importState(byId.get(slot.ruleId));
}
