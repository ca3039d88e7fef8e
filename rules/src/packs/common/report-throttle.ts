import type { Confidence } from '../../violations/violation.js';

/**
 * When a rule should restate an ongoing event. Events that only grow are restated at most every
 * `general.updateIntervalS`; a change of confidence or variant is stated at once. Keeping this in
 * the rules (not only in the engine) spares building a finding per sample for events that last
 * for hours — a whole day of operation with an expired permit, say.
 */
export interface LastReport {
  readonly endedAt: number;
  readonly confidence: Confidence;
  readonly variant: string | null;
}

export function shouldReport(
  last: LastReport | null,
  endedAt: number,
  confidence: Confidence,
  variant: string | null,
  intervalS: number,
): boolean {
  if (!last) return true;
  if (last.confidence !== confidence || last.variant !== variant) return true;
  return endedAt - last.endedAt >= intervalS * 1000;
}
