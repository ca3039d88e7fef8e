import type { PenaltySpec } from '../../violations/violation.js';
import { fine } from '../common/penalty-helpers.js';
import type { DfConfig, DfGroupedRule } from './config.js';

/** Anexo I: a group and its fine as a percentage of the UPDF (Art. 51), both configuration. */
export function dfGroupPenalty(config: DfConfig, rule: DfGroupedRule, extra: Partial<PenaltySpec> = {}): PenaltySpec {
  const group = config.groups[rule];
  const percent = config.groupUpdfPercent[group];
  return fine('UPDF', percent === null ? null : percent / 100, `Anexo I group ${group}`, { group, ...extra });
}
