import type { Pack } from '@vigia/core';
import type { FixedHoliday, LibraryHolidayType } from '../calendar/holiday-calendar.js';
import type { AssessedViolation, PriorViolation, RecidivismAssessment } from '../penalties/recidivism.js';
import type { RegistryView } from '../registry/registry-view.js';
import type { RuleId } from '../violations/rule-ids.js';
import type { PenaltySpec } from '../violations/violation.js';
import type { DispatchRecord } from './dispatch.js';
import type { GeneralConfig } from './general-config.js';
import type { CloseInfo, Finding } from './rule.js';
import type { SampleFacts } from './sample-facts.js';

/** One vehicle's instance of a pack: its detectors' and rules' state. */
export interface VehicleRules {
  step(facts: SampleFacts): readonly Finding[];
  close(info: CloseInfo): Finding[];
  /** What `close(info)` would find, keeping the state (a provisional close: the vehicle may resume). */
  peekClose(info: CloseInfo): Finding[];
  /** The vehicle's detectors' and rules' state as data (engine/checkpoint.ts). */
  exportState(): VehicleRulesState;
  /** Resume from `exportState`'s data; a rule the data does not name keeps its fresh state. */
  importState(state: VehicleRulesState): void;
}

/** A vehicle's rules' state: the pack's detectors, and each rule's state by rule id. */
export interface VehicleRulesState {
  readonly detectors: Readonly<Record<string, unknown>>;
  readonly slots: readonly { readonly ruleId: string; readonly state: unknown }[];
}

/**
 * A stand's legal queue as the pack's stand board now sees it, first in line first (dispatch
 * reads it: issue 10, one source of truth with the queue-jump rule). `asOfMs` is the pack's
 * event-time watermark when it was taken.
 */
export interface StandQueueChange {
  readonly standId: string;
  readonly pack: Pack;
  readonly asOfMs: number;
  readonly items: readonly { readonly vehicleId: string; readonly enteredMs: number }[];
}

/** What the engine needs from a pack; each pack module builds one from its parsed configuration. */
export interface PackRuntime {
  readonly pack: Pack;
  readonly timeZone: string;
  readonly general: GeneralConfig;
  readonly holidays: {
    readonly state: string;
    readonly countedTypes: readonly LibraryHolidayType[];
    readonly fixed: readonly FixedHoliday[];
  };
  /** The rules of the pack that are enabled. */
  readonly ruleIds: readonly RuleId[];
  legalBasis(ruleId: RuleId): readonly string[];
  description(ruleId: RuleId): { readonly pt: string; readonly en: string };
  penalty(ruleId: RuleId, variant: string | null): PenaltySpec;
  newVehicle(): VehicleRules;
  /**
   * Decide cross-vehicle matters (stand queues) that the pack's event-time watermark allows;
   * `untilMs` (shutdown only) forces every decision up to it. A wall clock never goes here.
   */
  flush(untilMs?: number): Finding[];
  /** A vehicle went silent in event time (its next sample came after `idleCloseS`): release its cross-vehicle state. */
  vehicleGone(vehicleId: string): Finding[];
  /** What `vehicleGone` would finish, keeping the state (a provisional close). */
  peekGone(vehicleId: string): Finding[];
  /** The stand queues that changed since the last call (packs with stands; none elsewhere). */
  standQueueChanges?(): StandQueueChange[];
  /** The pack's cross-vehicle state (the stand board) as data, for a checkpoint; none without stands. */
  exportShared?(): unknown;
  importShared?(state: unknown): void;
  /** Judge a radio dispatch record (Belém); other packs return nothing. */
  dispatch(record: DispatchRecord, registry: RegistryView): Finding[];
  /** Recidivism and escalation under the pack's own article (see penalties/recidivism.ts). */
  assessRecidivism(violation: AssessedViolation, priors: readonly PriorViolation[]): RecidivismAssessment;
}
