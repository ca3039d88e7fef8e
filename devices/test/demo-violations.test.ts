import { normaliseTelemetry, type Pack, telemetryInputSchema } from '@vigia/core';
import { createInMemoryRegistry, createRuleEngine, type RegistryRecordsInput } from '@vigia/rules';
import { describe, expect, it } from 'vitest';
import { charterContractBodies } from '../src/api/charter-contracts.js';
import { ManualClock } from '../src/clock.js';
import { Fleet } from '../src/fleet/fleet.js';
import { buildRoster, type OperatorRecord, type Roster } from '../src/fleet/roster.js';

type RuleOperatorKind = NonNullable<RegistryRecordsInput['operators']>[number]['kind'];

/**
 * The default demo (72 vehicles, seed 1, a sample every 2 s) judged by the live rule engine for
 * its first five minutes: a minority of vehicles with vices (fleet/vices.ts) raise violations of
 * many rules in every city, at any hour; the honest majority raises none.
 */

const VEHICLES = 72;
const SEED = 1;
const INTERVAL_MS = 2000;
const DEMO_MS = 5 * 60_000;

/** The API's operator kinds as rule records name them (ingest/src/rules/registry-loader.ts). */
const operatorKind = (o: OperatorRecord): RuleOperatorKind => {
  switch (o.kind) {
    case 'company':
      return o.pack === 'sp-fretamento' ? 'charter-company' : 'taxi-company';
    case 'permit-holder':
      return 'taxi-autonomous';
    default:
      return o.kind;
  }
};

/** The registry as the simulator registers the roster, mapped to rule records like the ingest's registry loader. */
function rosterRegistry(roster: Roster): RegistryRecordsInput {
  const packOf = new Map(roster.operators.map((o) => [o.id, o.pack]));
  return {
    operators: roster.operators.map((o) => ({
      id: o.id,
      name: o.name,
      pack: o.pack,
      kind: operatorKind(o),
      status: 'authorized',
    })),
    drivers: roster.entries.flatMap((e) =>
      e.drivers.map((d) => ({ id: d.id, name: d.name, pack: packOf.get(d.operatorId) as Pack })),
    ),
    vehicles: roster.entries.map((e) => ({ ...e.vehicle, status: 'active' as const })),
    // The charter contracts the simulator registers, as the ingest's registry loader maps them.
    contracts: charterContractBodies(roster, '2024-01-01').map(({ validFrom: _from, kind: _kind, ...c }) => ({
      ...c,
      pack: 'sp-fretamento' as const,
      kind: 'continuo' as const,
    })),
  };
}

interface DemoJudgement {
  /** Rule id → vehicles that raised it. */
  byRule: Map<string, Set<string>>;
  /** Vehicle id → rule ids it raised. */
  byVehicle: Map<string, Set<string>>;
  samples: number;
}

/** Runs the demo fleet from `startMs` for `durationMs`, feeding every sample to the rule engine as the ingest does. */
function judgeDemo(startMs: number, durationMs = DEMO_MS, roster = buildRoster(VEHICLES, startMs)): DemoJudgement {
  const engine = createRuleEngine({ registry: createInMemoryRegistry(rosterRegistry(roster)) });
  const devices = new Map(roster.entries.map((e) => [e.device.identifier, e.device]));
  const clock = new ManualClock(startMs);
  const fleet = new Fleet(roster, { seed: SEED, startMs });
  const byRule = new Map<string, Set<string>>();
  const byVehicle = new Map<string, Set<string>>();
  let samples = 0;
  while (clock.now() <= startMs + durationMs) {
    for (const input of fleet.tick(clock.now(), INTERVAL_MS)) {
      const device = devices.get(input.deviceId);
      if (!device) throw new Error(`unknown device ${input.deviceId}`);
      const parsed = telemetryInputSchema.parse(input);
      const sample = normaliseTelemetry(
        parsed,
        { deviceId: device.id, vehicleId: device.vehicleId },
        new Date(clock.now() + 150),
      );
      samples++;
      for (const event of engine.ingest(sample)) {
        if (event.type !== 'raised') continue;
        const { ruleId, vehicleId } = event.violation;
        byRule.set(ruleId, (byRule.get(ruleId) ?? new Set()).add(vehicleId));
        byVehicle.set(vehicleId, (byVehicle.get(vehicleId) ?? new Set()).add(ruleId));
      }
    }
    clock.advance(INTERVAL_MS);
  }
  return { byRule, byVehicle, samples };
}

const PACK_PREFIX: Readonly<Record<Pack, string>> = {
  'df-taxi': 'DF_',
  'belem-taxi': 'BEL_',
  'sp-fretamento': 'FRET_',
};

/** Brasília and São Paulo are UTC−03:00, Belém too: one local time for the three packs. */
const START_TIMES = [
  ['a weekday at 10:00', '2026-03-10T10:00:00-03:00'],
  ['a weekday at 22:00', '2026-03-10T22:00:00-03:00'],
  ['a Sunday at 15:00', '2026-03-15T15:00:00-03:00'],
] as const;

describe('the default demo fleet judged by the live rules for five minutes', () => {
  it.each(START_TIMES)('starting on %s raises a realistic mix of violations from a minority', (_label, at) => {
    const start = Date.parse(at);
    const roster = buildRoster(VEHICLES, start);
    const { byRule, byVehicle, samples } = judgeDemo(start, DEMO_MS, roster);
    const ruleIds = [...byRule.keys()].sort();
    console.info(
      `${at}: ${samples} samples; ${ruleIds.length} rule ids: ${ruleIds.map((r) => `${r}×${byRule.get(r)?.size}`).join(', ')}; ${byVehicle.size} vehicles`,
    );

    expect(ruleIds.length).toBeGreaterThanOrEqual(8);
    for (const prefix of Object.values(PACK_PREFIX))
      expect(
        ruleIds.some((r) => r.startsWith(prefix)),
        prefix,
      ).toBe(true);
    expect(byVehicle.size / roster.entries.length).toBeLessThan(0.3);

    const honest = new Set(roster.entries.filter((e) => !e.vices).map((e) => e.vehicle.id));
    const honestOffenders = [...byVehicle]
      .filter(([id]) => honest.has(id))
      .map(([id, rules]) => `${id}: ${[...rules]}`);
    expect(honestOffenders).toEqual([]);
  });
});
