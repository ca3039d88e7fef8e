import type { PenaltySpec } from '../../violations/violation.js';
import { fine } from '../common/penalty-helpers.js';

/** Art. 58: the four groups and their fines in IPCA-E (Art. 57). */
export const belemGroupUnits = { I: 20, II: 30, III: 40, IV: 70 } as const;
export type BelemGroup = keyof typeof belemGroupUnits;

export function belemGroupPenalty(group: BelemGroup, item: string, extra: Partial<PenaltySpec> = {}): PenaltySpec {
  return fine('IPCA-E', belemGroupUnits[group], `Art. 58 item ${item}`, { group, ...extra });
}
