import type { Pack } from '@vigia/core';

/**
 * Regulatory scenarios: for a rule id, what to put in the registry and what telemetry to send
 * through the real HTTP ingest, and what the rule must then say — `fires` (a violation of that
 * rule for the scenario's vehicle, with its article, confidence and key measured values) or
 * `quiet` (a near miss: no violation of that rule for the vehicle once the decision point has
 * been passed).
 */

/** A registry record to create through `POST /v1/<collection>`, in order. */
export interface RegistryStep {
  collection:
    | 'operators'
    | 'vehicles'
    | 'devices'
    | 'drivers'
    | 'stops'
    | 'stands'
    | 'zones'
    | 'contracts'
    | 'holidays';
  body: Record<string, unknown>;
}

/** One telemetry record as `POST /v1/telemetry` takes it (`deviceId` is the device identifier). */
export interface SampleInput {
  deviceId: string;
  ts: string;
  lat: number;
  lon: number;
  speedKmh?: number;
  headingDeg?: number;
  accuracyM?: number;
  ignition?: boolean;
  doorOpen?: boolean;
  passengers?: number;
  childrenUnder7?: number;
  boardings?: number;
  alightings?: number;
  meter?: { state: 'free' | 'hired' | 'stopped' | 'off'; tariff?: 1 | 2; fareCents?: number; tripId?: string };
  tacho?: { speedKmh?: number; driverId?: string };
}

/** A Belém radio dispatch as `POST /v1/dispatches` takes it. */
export interface DispatchInput {
  id?: string;
  ts: string;
  radioOperatorId: string;
  vehicleId: string;
  lat?: number;
  lon?: number;
  tripId?: string;
}

/** What a scenario sends, built for one run (ids are unique per run, times relative to now). */
export interface ScenarioPlan {
  registry: RegistryStep[];
  samples: SampleInput[];
  dispatches: DispatchInput[];
  /** The vehicle whose violations are checked. */
  vehicleId: string;
  /** Local time of the scenario, for the printout (e.g. 'Tue 2026-11-10 15:00 America/Sao_Paulo'). */
  when: string;
}

export interface BuildContext {
  /** Unique per run: part of every id, so a scenario can be replayed against the same system. */
  runId: string;
  /** The wall clock at the run (epoch ms): scenarios in the past are placed relative to it. */
  nowMs: number;
  /** A plate unique within the run. */
  plate(): string;
}

export interface Scenario {
  /** Kebab-case name, used on the command line. */
  name: string;
  ruleId: string;
  pack: Pack;
  /** The article the rule rests on, as it appears in the violation's `legalBasis`. */
  article: string;
  expect: 'fires' | 'quiet';
  /** One line: what happens and why the rule must (or must not) fire. */
  summary: string;
  /** For `fires`: the violation's confidence. */
  confidence?: 'confirmed' | 'suspected';
  /** For `fires`: measured values the violation must carry (a deep subset). */
  measured?: Record<string, unknown>;
  /**
   * Set when the rule cannot decide with the default pack configuration (e.g. tariffs that
   * ship null): the scenario documents what would fire once the configuration is set.
   */
  requiresConfiguration?: string;
  build(ctx: BuildContext): ScenarioPlan;
}
