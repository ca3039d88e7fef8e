import type { Pack } from '@vigia/core';
import type { DispatchRecord } from '../../engine/dispatch.js';
import type { GeneralConfig } from '../../engine/general-config.js';
import type { PackRuntime } from '../../engine/pack-runtime.js';
import {
  closeRules,
  exportRuleStates,
  type Finding,
  importRuleStates,
  initRuleStates,
  type PackRule,
  peekCloseRules,
  type RuleMeta,
  stepRules,
} from '../../engine/rule.js';
import type { Writable } from '../../engine/sample-facts.js';
import type { AssessedViolation, PriorViolation, RecidivismAssessment } from '../../penalties/recidivism.js';
import type { RegistryView } from '../../registry/registry-view.js';
import { assertTimeZone } from '../../time/local-time.js';
import type { RuleId } from '../../violations/rule-ids.js';
import { RuleCatalogue } from './assemble.js';
import { StandBoard, type StandBoardRules } from './stand-board.js';
import type { StandPresenceConfig } from './stand-config.js';
import { initialPresenceState, stepPresence } from './stand-presence.js';
import type { TaxiContext } from './taxi-context.js';
import {
  copyTripState,
  initialTripState,
  type TripDistanceSettings,
  type TripSignal,
  trackTripInto,
} from './taxi-trip.js';

/** The parts of a taxi pack (DF, Belém) that differ; the wiring is shared. */
export interface TaxiPackParts<C> {
  readonly pack: Pack;
  readonly config: C;
  readonly general: GeneralConfig;
  readonly timeZone: string;
  readonly holidays: PackRuntime['holidays'];
  readonly disabledRules: readonly RuleId[];
  /** Per-sample rules. */
  readonly rules: readonly PackRule<C, TaxiContext>[];
  /** Rules decided elsewhere (stand board, dispatch records): metadata only. */
  readonly otherRules: readonly RuleMeta<C>[];
  readonly presence: StandPresenceConfig;
  readonly board: StandBoardRules;
  readonly tripMaxGapS: number;
  /** How trip distance filters GPS jitter (`tripDistance.*`, taxi-trip.ts). */
  readonly tripDistance: TripDistanceSettings;
  dispatch?(record: DispatchRecord, registry: RegistryView, config: C): Finding[];
  assessRecidivism(violation: AssessedViolation, priors: readonly PriorViolation[]): RecidivismAssessment;
}

export function createTaxiRuntime<C>(parts: TaxiPackParts<C>): PackRuntime {
  assertTimeZone(parts.timeZone);
  const enabled = (id: RuleId): boolean => !parts.disabledRules.includes(id);
  const rules = parts.rules.filter((r) => enabled(r.id));
  const catalogue = new RuleCatalogue(parts.pack, parts.config, [...parts.rules, ...parts.otherRules]);
  const boardRules: StandBoardRules = {
    queueJump: parts.board.queueJump,
    overflow: parts.board.overflow && enabled(parts.board.overflow.ruleId) ? parts.board.overflow : null,
  };
  const board = new StandBoard(parts.presence, boardRules, parts.general.backlogHorizonS);
  const queueJumpEnabled = enabled(parts.board.queueJump);
  const keepBoardFinding = (f: Finding): boolean => f.ruleId !== parts.board.queueJump || queueJumpEnabled;
  /** One trip signal for the pack, filled for each sample (`trackTripInto`): rules read it during their step only. */
  const tripSignal: Writable<TripSignal> = { current: null, ended: null, stepM: 0 };

  return {
    pack: parts.pack,
    timeZone: parts.timeZone,
    general: parts.general,
    holidays: parts.holidays,
    ruleIds: [...parts.rules, ...parts.otherRules].map((r) => r.id).filter(enabled),
    legalBasis: (id) => catalogue.legalBasis(id),
    description: (id) => catalogue.description(id),
    penalty: (id, variant) => catalogue.penalty(id, variant),
    newVehicle() {
      let trip = initialTripState;
      let presence = initialPresenceState;
      // The previous sample's instant, beside the presence state (`stepPresence`): most samples
      // then leave that state as it was.
      let presenceLastMs: number | null = null;
      const states = initRuleStates(rules);
      return {
        step(facts) {
          trip = trackTripInto(trip, facts, parts.tripMaxGapS, parts.tripDistance, tripSignal);
          const p = stepPresence(presence, presenceLastMs, facts, parts.presence);
          presence = p.state;
          presenceLastMs = facts.ms;
          // The engine's facts object, reused from sample to sample: extended in place with the
          // pack's signals rather than copied (its shape settles after the first sample). The trip
          // signal is the pack's own, rewritten for each sample like the facts.
          const ctx = facts as Writable<TaxiContext>;
          ctx.trip = tripSignal;
          ctx.stands = p.signal;
          const found = stepRules(rules, states, ctx, parts.config);
          const atStand = p.signal.present.length > 0 || p.signal.left.length > 0 || p.signal.hire !== null;
          if (atStand || board.wantsTick(facts.ms)) {
            const decided = board.update(facts.sample.vehicleId, facts.ms, p.signal).filter(keepBoardFinding);
            if (decided.length > 0) return found.length === 0 ? decided : [...found, ...decided];
          }
          return found;
        },
        close(info) {
          trip = initialTripState;
          presence = initialPresenceState;
          presenceLastMs = null;
          return closeRules(rules, states, info, parts.config);
        },
        peekClose: (info) => peekCloseRules(rules, states, info, parts.config),
        exportState: () => ({
          // A snapshot: the tracker goes on updating its trip in place (`copyTripState`).
          detectors: { trip: copyTripState(trip), presence: { ...presence, lastMs: presenceLastMs } },
          slots: exportRuleStates(rules, states),
        }),
        importState(state) {
          // The tracker's own objects, never the caller's (`copyTripState`).
          const saved = state.detectors.trip as typeof trip | undefined;
          trip = saved === undefined || saved === null ? initialTripState : copyTripState(saved);
          presence = (state.detectors.presence as typeof presence | undefined) ?? initialPresenceState;
          presenceLastMs = presence.lastMs;
          importRuleStates(rules, states, state.slots);
        },
      };
    },
    flush: (untilMs) => board.flush(untilMs).filter(keepBoardFinding),
    vehicleGone: (vehicleId) => board.vehicleGone(vehicleId).filter(keepBoardFinding),
    peekGone: (vehicleId) => board.peekGone(vehicleId).filter(keepBoardFinding),
    exportShared: () => board.exportState(),
    importShared: (state) => board.importState(state),
    standQueueChanges: () => board.takeQueueChanges().map((c) => ({ ...c, pack: parts.pack })),
    dispatch: (record, registry) =>
      parts.dispatch && enabled('BEL_UNAUTHORIZED_RADIO') ? parts.dispatch(record, registry, parts.config) : [],
    assessRecidivism: parts.assessRecidivism,
  };
}
