import { ruleIds, ruleIdsByPack } from '@vigia/rules';
import { describe, expect, it } from 'vitest';
import { scenarios } from '../src/scenarios/index.js';

/** The scenario catalogue covers the rule catalogue: every rule id of RULES.md fires and has a near miss. */
describe('scenario catalogue', () => {
  it('has a firing scenario and a near miss for each of the 40 rule ids, in the rule’s pack', () => {
    expect(ruleIds).toHaveLength(40);
    for (const [pack, ids] of Object.entries(ruleIdsByPack)) {
      for (const id of ids) {
        const mine = scenarios.filter((s) => s.ruleId === id);
        expect(
          mine.every((s) => s.pack === pack),
          id,
        ).toBe(true);
        expect(
          mine.some((s) => s.expect === 'fires'),
          `${id} fires`,
        ).toBe(true);
        expect(
          mine.some((s) => s.expect === 'quiet'),
          `${id} near miss`,
        ).toBe(true);
      }
    }
    expect(scenarios.every((s) => (ruleIds as readonly string[]).includes(s.ruleId))).toBe(true);
  });

  it('names every scenario uniquely (the command line picks them by name)', () => {
    const names = scenarios.map((s) => s.name);
    expect(new Set(names).size).toBe(names.length);
  });
});
