import type { Telemetry } from '@vigia/core';
import type { RuleEngine } from '../../src/engine/rule-engine.js';
import type { RuleId } from '../../src/violations/rule-ids.js';
import type { Violation, ViolationEvent } from '../../src/violations/violation.js';

/** Feed samples in order, then close the engine; returns every event. */
export function run(
  engine: RuleEngine,
  samples: readonly Telemetry[],
  options: { close?: boolean } = {},
): ViolationEvent[] {
  const events: ViolationEvent[] = [];
  for (const s of samples) events.push(...engine.ingest(s));
  if (options.close ?? true) events.push(...engine.close());
  return events;
}

/** The last state of each violation (by key), excluding withdrawn ones. */
export function latest(events: readonly ViolationEvent[], ruleId?: RuleId): Violation[] {
  const byKey = new Map<string, Violation>();
  for (const e of events) {
    if (ruleId && e.violation.ruleId !== ruleId) continue;
    if (e.type === 'withdrawn') byKey.delete(e.violation.key);
    else byKey.set(e.violation.key, e.violation);
  }
  return [...byKey.values()];
}

export function only(events: readonly ViolationEvent[], ruleId: RuleId): Violation {
  const found = latest(events, ruleId);
  if (found.length !== 1) {
    throw new Error(
      `expected exactly one ${ruleId}, got ${found.length}: ${JSON.stringify(latest(events).map((v) => v.ruleId))}`,
    );
  }
  return found[0] as Violation;
}

export function num(v: Violation, field: string): number {
  const value = v.measured[field];
  if (typeof value !== 'number') throw new Error(`measured.${field} is ${JSON.stringify(value)}, not a number`);
  return value;
}
