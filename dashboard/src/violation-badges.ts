import type { ViolationFields } from './api-types.js';
import { element } from './dom.js';
import { confidenceLabels, statusLabels } from './violation-format.js';

/**
 * The confidence and workflow status of a violation as two badges. A `suspected` one is set apart
 * because it rests on an inferred input (RULES.md): an officer reviews it before acting on it.
 */
export function violationBadges(violation: Pick<ViolationFields, 'confidence' | 'status'>): HTMLElement[] {
  const confidence = confidenceLabels[violation.confidence];
  const confidenceBadge = element('span', `badge badge--${violation.confidence}`, confidence.label);
  confidenceBadge.title = confidence.hint;
  confidenceBadge.dataset.confidence = violation.confidence;
  const statusBadge = element('span', `badge badge--status-${violation.status}`, statusLabels[violation.status]);
  statusBadge.dataset.status = violation.status;
  return [confidenceBadge, statusBadge];
}
