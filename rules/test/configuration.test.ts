import { describe, expect, it } from 'vitest';
import { createRuleEngine } from '../src/engine/rule-engine.js';
import { describePackConfig } from '../src/packs/config-docs.js';
import { dfConfigSchema } from '../src/packs/df-taxi/config.js';
import { createInMemoryRegistry } from '../src/registry/in-memory-registry.js';

describe('pack configuration (zod, documented)', () => {
  it('documents every setting of every pack, and marks the interpretations of RULES.md', () => {
    for (const pack of ['sp-fretamento', 'df-taxi', 'belem-taxi'] as const) {
      const settings = describePackConfig(pack);
      expect(settings.length).toBeGreaterThan(30);
      for (const s of settings) expect(s.description, `${pack} ${s.path}`).not.toBe('');
      expect(settings.some((s) => s.interpretation)).toBe(true);
    }
    const df = describePackConfig('df-taxi');
    expect(df.find((s) => s.path === 'bandeira2.airportCondition')).toMatchObject({
      default: 'origin-or-destination',
      interpretation: true,
    });
    expect(df.find((s) => s.path === 'tariff.bandeiradaUt')).toMatchObject({
      default: 4,
      interpretation: false,
      basis: 'Art. 45 I',
    });
    expect(df.find((s) => s.path === 'capacity.maxPassengers')).toMatchObject({ default: 6, basis: 'Art. 24' });
  });

  it('fills defaults from RULES.md and rejects invalid values with every problem listed', () => {
    const c = dfConfigSchema.parse({});
    expect(c.bandeira2).toMatchObject({ minStretchSeconds: 60, minStretchMetres: 200 });
    expect(c.stands.queueToleranceS).toBe(30);
    expect(c.escalation).toMatchObject({ A: 6, B: 4, C: 3, D: 1, mixed: 4 });
    const bad = dfConfigSchema.safeParse({ bandeira2: { minStretchSeconds: -1 }, groups: { DF_DETOUR: 'E' } });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues.map((i) => i.path.join('.'))).toEqual(
      expect.arrayContaining(['bandeira2.minStretchSeconds', 'groups.DF_DETOUR']),
    );
    expect(() =>
      createRuleEngine({ registry: createInMemoryRegistry({}), packs: { 'belem-taxi': { timeZone: 'Mars/Olympus' } } }),
    ).toThrow();
    expect(() =>
      createRuleEngine({
        registry: createInMemoryRegistry({}),
        packs: { 'sp-fretamento': { general: { evidenceMarginS: 60 } } },
      }),
    ).toThrow();
  });
});

describe('README configuration tables', () => {
  it('list every setting of every pack (the tables are generated from the schemas; this keeps them in step)', async () => {
    const { readFileSync } = await import('node:fs');
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    for (const pack of ['sp-fretamento', 'df-taxi', 'belem-taxi'] as const) {
      for (const s of describePackConfig(pack)) expect(readme, `${pack} ${s.path}`).toContain(`\`${s.path}\``);
    }
  });
});
