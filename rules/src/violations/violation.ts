import type { Pack } from '@vigia/core';
import type { FineUnit } from '../registry/records.js';
import type { RuleId } from './rule-ids.js';

/**
 * What the engine hands to the violations store: one record per event (not per sample), raised
 * once and then updated under the same `key` while the event grows, until its `phase` is final.
 * Field names follow shared/API.md ("A violation"); the store adds `id`, workflow `status`
 * (open → confirmed | dismissed → notified) and `recidivism` (see penalties/assess-penalty.ts).
 */

export type Confidence = 'confirmed' | 'suspected';

export type PlaceKind = 'stop' | 'stand' | 'zone' | 'route' | 'boarding-place' | 'radio-operator';

/** The named stop, stand, zone or route the violation happened at. */
export interface PlaceRef {
  readonly id: string;
  readonly kind: PlaceKind;
  readonly name: string;
}

/** JSON-safe measured values (the figures that made the rule fire). */
export type MeasuredValue = number | string | boolean | null | readonly MeasuredValue[] | MeasuredObject;
export interface MeasuredObject {
  readonly [key: string]: MeasuredValue;
}
export type Measured = MeasuredObject;

/** The fine as the regulation states it, before recidivism. */
export interface PenaltySpec {
  /** Unit the fine is stated in (null: no fine, e.g. registry non-compliance). */
  readonly unit: FineUnit | null;
  /** Fine in `unit` (DF: the group's percentage of the UPDF / 100). Null when not fixed or not configured. */
  readonly units: number | null;
  /** Infraction group: DF `A`–`D` (Anexo I), Belém `I`–`IV` (Art. 58). */
  readonly group: string | null;
  /** The article or item the fine rests on, e.g. `Art. 23 V`, `Art. 58 item 3.4`. */
  readonly item: string;
  /** Vehicle apprehension (SP Art. 28, 28-A). */
  readonly apprehension: boolean;
  /** Opens cancellation proceedings of the registration / permit (SP Art. 29 I, DF Art. 14 §3, 17 II). */
  readonly opensCancellation: boolean;
  /** The finding is a registry non-compliance for administrative action rather than a fine of its own. */
  readonly registryNonCompliance: boolean;
}

export interface Penalty extends PenaltySpec {
  /** `units` × the unit's BRL value in force on the event date (before any recidivism doubling). */
  readonly amountBrl: number | null;
  readonly unitValueBrl: number | null;
  /** The date from which that unit value is in force. */
  readonly unitValueFrom: string | null;
}

/** The telemetry trace an officer needs: the store links the samples of `vehicleId` in `[from, to]`. */
export interface EvidenceWindow {
  readonly vehicleId: string;
  readonly deviceId: string | null;
  readonly from: Date;
  readonly to: Date;
  /** `around-event`: at least the configured margin (≥ 2 min) either side; `whole-trip`: the whole meter trip. */
  readonly scope: 'around-event' | 'whole-trip';
  readonly tripId: string | null;
}

export type ViolationPhase = 'ongoing' | 'final';

export interface Violation {
  /** Stable per event: `pack:ruleId:vehicleId:eventId`; the store upserts on it. */
  readonly key: string;
  readonly ruleId: RuleId;
  readonly pack: Pack;
  readonly legalBasis: readonly string[];
  readonly description: { readonly pt: string; readonly en: string };
  /** Sub-case of the rule when it has several (e.g. `vehicle-withdrawn`), else null. */
  readonly variant: string | null;
  readonly vehicleId: string;
  readonly plate: string | null;
  readonly make: string | null;
  readonly colour: string | null;
  readonly permitNumber: string | null;
  readonly operatorId: string | null;
  readonly driverId: string | null;
  readonly startedAt: Date;
  readonly endedAt: Date;
  /** Local wall time with offset in the pack's zone, e.g. `2026-03-06T19:59:00-03:00`. */
  readonly localStartedAt: string;
  readonly localEndedAt: string;
  readonly timeZone: string;
  /** `receivedAt` of the sample that raised or last updated the violation (the engine reads no clock). */
  readonly detectedAt: Date;
  /** Null only when nothing locates the event (a radio dispatch with no position and no telemetry). */
  readonly lat: number | null;
  readonly lon: number | null;
  readonly place: PlaceRef | null;
  readonly measured: Measured;
  readonly confidence: Confidence;
  readonly evidence: EvidenceWindow;
  readonly penalty: Penalty;
  /** `ongoing` while the event may still grow; `final` once it is over (no further updates). */
  readonly phase: ViolationPhase;
  /** 1 when raised, +1 on every update the engine emits. */
  readonly revision: number;
}

export interface ViolationEvent {
  /**
   * `raised`: first emission of the key; `updated`: the same event grew or was decided;
   * `withdrawn`: a provisional alert turned out not to be a violation (e.g. the Bandeira II trip
   * ended at the airport) — the store should dismiss it with `reason`.
   */
  readonly type: 'raised' | 'updated' | 'withdrawn';
  readonly violation: Violation;
  readonly reason: string | null;
}
