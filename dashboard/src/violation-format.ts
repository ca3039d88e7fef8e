import type { Pack, Penalty, Recidivism, ReviewDecision, ViolationConfidence, ViolationStatus } from './api-types.js';
import {
  formatBrl,
  formatNumber as formatLocalNumber,
  legalTime,
  legalTimeWithZone,
  recentTime,
} from './legal-time.js';
import { reviewMessages } from './review-messages.js';
import { violationMessages as m } from './violation-messages.js';

/**
 * Wording and formats of violations. Times are shown in the pack's legal time zone, not the
 * browser's: whether Bandeira II was allowed depends on the local hour and weekday where the taxi
 * ran, and an officer in another state must read the same clock the regulation speaks of.
 */

export { packTimeZone } from './legal-time.js';

/** The regulation each pack enforces (shared/RULES.md), as an auto de infração would cite it. */
const regulations: Record<Pack, string> = {
  'sp-fretamento':
    'Decreto estadual de São Paulo sobre o fretamento metropolitano, alterado pelos Decretos 28.478/1988, 36.963/1993 e 51.396/2006',
  'df-taxi':
    'Regulamento do Serviço de Táxi do Distrito Federal (STx-DF), alterado pelos Decretos 16.616/1995, 16.875/1995 e 17.120/1996',
  'belem-taxi':
    'Lei municipal do serviço de táxi de Belém (CTBel, SEMOB/AMUB), alterada pelas Leis 8.961/2012 e 9.447/2019',
};

export function regulationLabel(pack: Pack): string {
  return regulations[pack] ?? pack;
}

export const statusLabels: Record<ViolationStatus, string> = m.status;

/**
 * Confidence is badged "Measured" rather than the API's `confirmed`: beside the workflow status
 * (which also has a "Confirmed") the same word would read as the review outcome.
 */
export const confidenceLabels: Record<ViolationConfidence, { label: string; filter: string; hint: string }> =
  m.confidence;

export const decisionLabels: Record<ReviewDecision, string> = {
  ...m.decisions,
  reopen: reviewMessages.reopen,
};

export function placeKindLabel(kind: string): string {
  return m.placeKinds[kind] ?? kind;
}

/** Feed rows: weekday and time, with the date when it is not today where the vehicle is. */
export function feedTimeLabel(iso: string, pack: Pack, nowMs: number): string {
  return recentTime(iso, pack, nowMs);
}

/** Evidence and detail: the full local date and time with the zone's name, as a notice would state it. */
export function localDateTimeLabel(iso: string | null, pack: Pack): string {
  return iso === null ? '—' : legalTimeWithZone(iso, pack, 'weekday-date-time');
}

/** Time of day only (evidence samples, whose date the detail already states). */
export function localTimeLabel(iso: string, pack: Pack): string {
  return legalTime(iso, pack, 'weekday-time');
}

export function brlLabel(amount: number): string {
  return formatBrl(amount);
}

/** "Group C · 10 ORTN · R$ 1.234,56 · apreensão": the parts the pack's penalty has, in that order. */
export function penaltyLabel(penalty: Penalty): string {
  const parts: string[] = [];
  if (typeof penalty.group === 'string' && penalty.group) parts.push(m.penalty.group(penalty.group));
  if (typeof penalty.units === 'number') {
    parts.push(
      typeof penalty.unit === 'string' ? `${formatNumber(penalty.units)} ${penalty.unit}` : formatNumber(penalty.units),
    );
  }
  if (typeof penalty.amountBrl === 'number') parts.push(brlLabel(penalty.amountBrl));
  if (penalty.apprehension === true) parts.push(m.penalty.apprehension);
  return parts.length > 0 ? parts.join(' · ') : '—';
}

/** What the escalation field says, whatever shape a pack gives it (text, flag or a small record). */
export function escalationLabel(escalation: unknown): string | null {
  if (escalation === undefined || escalation === null || escalation === false) return null;
  if (typeof escalation === 'string') return escalation || null;
  if (escalation === true) return m.penalty.yes;
  if (typeof escalation === 'object') {
    const record = escalation as Record<string, unknown>;
    for (const key of ['description', 'label', 'kind', 'type']) {
      const text = record[key];
      if (typeof text === 'string' && text) return text;
    }
    return JSON.stringify(escalation);
  }
  return String(escalation);
}

/** "2 earlier within 365 days" (RULES.md: SP Art. 27 doubles the fine, DF Art. 53 counts per group). */
export function recidivismLabel(recidivism: Recidivism): string {
  const count = typeof recidivism.count === 'number' ? recidivism.count : null;
  const days = typeof recidivism.windowDays === 'number' ? recidivism.windowDays : null;
  if (count === null) return '—';
  const earlier = m.penalty.earlier(count);
  return days === null ? earlier : m.penalty.within(earlier, days);
}

export function formatNumber(value: number, maximumFractionDigits = 2): string {
  return formatLocalNumber(value, { maximumFractionDigits });
}
