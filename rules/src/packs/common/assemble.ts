import type { Pack } from '@vigia/core';
import type { PackRule } from '../../engine/rule.js';
import type { RuleId } from '../../violations/rule-ids.js';
import type { PenaltySpec } from '../../violations/violation.js';

/** Rule metadata lookups shared by the pack runtimes. */
export class RuleCatalogue<C> {
  private readonly byId = new Map<
    RuleId,
    {
      legalBasis: readonly string[];
      description: { pt: string; en: string };
      penalty: (c: C, v: string | null) => PenaltySpec;
    }
  >();

  constructor(
    readonly pack: Pack,
    private readonly config: C,
    metas: readonly {
      id: RuleId;
      legalBasis: readonly string[];
      description: { pt: string; en: string };
      penalty: (c: C, v: string | null) => PenaltySpec;
    }[],
  ) {
    for (const m of metas) this.byId.set(m.id, m);
  }

  private get(ruleId: RuleId) {
    const m = this.byId.get(ruleId);
    if (!m) throw new Error(`Rule ${ruleId} is not part of pack ${this.pack}`);
    return m;
  }

  legalBasis(ruleId: RuleId): readonly string[] {
    return this.get(ruleId).legalBasis;
  }

  description(ruleId: RuleId): { pt: string; en: string } {
    return this.get(ruleId).description;
  }

  penalty(ruleId: RuleId, variant: string | null): PenaltySpec {
    return this.get(ruleId).penalty(this.config, variant);
  }
}

/** The enabled per-sample rules of a pack. */
export function enabledRules<C, X>(rules: readonly PackRule<C, X>[], disabled: readonly string[]): PackRule<C, X>[] {
  return rules.filter((r) => !disabled.includes(r.id));
}
