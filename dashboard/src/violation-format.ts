import type { Pack, Penalty, Recidivism, ReviewDecision, ViolationConfidence, ViolationStatus } from './api-types.js';

/**
 * Wording and formats of violations. Times are shown in the pack's legal time zone, not the
 * browser's: whether Bandeira II was allowed depends on the local hour and weekday where the taxi
 * ran, and an officer in another state must read the same clock the regulation speaks of.
 */

const packTimeZones: Record<Pack, string> = {
  'sp-fretamento': 'America/Sao_Paulo',
  'df-taxi': 'America/Sao_Paulo',
  'belem-taxi': 'America/Belem',
};

export function packTimeZone(pack: Pack): string {
  return packTimeZones[pack] ?? 'America/Sao_Paulo';
}

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

export const statusLabels: Record<ViolationStatus, string> = {
  open: 'Open',
  confirmed: 'Confirmed',
  dismissed: 'Dismissed',
  notified: 'Notified',
};

/**
 * Confidence is badged "Measured" rather than the API's `confirmed`: beside the workflow status
 * (which also has a "Confirmed") the same word would read as the review outcome.
 */
export const confidenceLabels: Record<ViolationConfidence, { label: string; filter: string; hint: string }> = {
  confirmed: {
    label: 'Measured',
    filter: 'Confirmed (measured)',
    hint: 'Confidence: confirmed. Every input the rule needs was measured',
  },
  suspected: {
    label: 'Suspected',
    filter: 'Suspected (inferred)',
    hint: 'Confidence: suspected. An input was inferred: review before acting on it',
  },
};

export const decisionLabels: Record<ReviewDecision, string> = {
  confirm: 'Confirm',
  dismiss: 'Dismiss',
  notify: 'Notify',
};

const placeKindLabels: Record<string, string> = {
  stop: 'Regular-service stop',
  stand: 'Taxi stand (ponto)',
  zone: 'Zone',
  route: 'Declared itinerary',
};

export function placeKindLabel(kind: string): string {
  return placeKindLabels[kind] ?? kind;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string, style: 'day' | 'time' | 'dayTime' | 'full'): Intl.DateTimeFormat {
  const key = `${timeZone}|${style}`;
  let format = formatters.get(key);
  if (!format) {
    const time = { hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' } as const;
    const options: Intl.DateTimeFormatOptions =
      style === 'day'
        ? { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }
        : style === 'time'
          ? { timeZone, weekday: 'short', ...time }
          : style === 'dayTime'
            ? { timeZone, weekday: 'short', day: '2-digit', month: '2-digit', ...time }
            : {
                timeZone,
                weekday: 'short',
                year: 'numeric',
                month: '2-digit',
                day: '2-digit',
                ...time,
                timeZoneName: 'short',
              };
    format = new Intl.DateTimeFormat(undefined, options);
    formatters.set(key, format);
  }
  return format;
}

/** Feed rows: weekday and time, with the date when it is not today where the vehicle is. */
export function feedTimeLabel(iso: string, pack: Pack, nowMs: number): string {
  const at = Date.parse(iso);
  if (!Number.isFinite(at)) return '—';
  const zone = packTimeZone(pack);
  const day = formatter(zone, 'day');
  const sameDay = day.format(at) === day.format(nowMs);
  return formatter(zone, sameDay ? 'time' : 'dayTime').format(at);
}

/** Evidence and detail: the full local date and time with the zone's offset, as a notice would state it. */
export function localDateTimeLabel(iso: string | null, pack: Pack): string {
  if (iso === null) return '—';
  const at = Date.parse(iso);
  return Number.isFinite(at) ? formatter(packTimeZone(pack), 'full').format(at) : iso;
}

/** Time of day only (evidence samples, whose date the detail already states). */
export function localTimeLabel(iso: string, pack: Pack): string {
  const at = Date.parse(iso);
  return Number.isFinite(at) ? formatter(packTimeZone(pack), 'time').format(at) : iso;
}

const brlFormat = new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' });

export function brlLabel(amount: number): string {
  return brlFormat.format(amount);
}

/** "Group C · 10 ORTN · R$ 1.234,56 · apreensão": the parts the pack's penalty has, in that order. */
export function penaltyLabel(penalty: Penalty): string {
  const parts: string[] = [];
  if (typeof penalty.group === 'string' && penalty.group) parts.push(`Group ${penalty.group}`);
  if (typeof penalty.units === 'number') {
    parts.push(
      typeof penalty.unit === 'string' ? `${formatNumber(penalty.units)} ${penalty.unit}` : formatNumber(penalty.units),
    );
  }
  if (typeof penalty.amountBrl === 'number') parts.push(brlLabel(penalty.amountBrl));
  if (penalty.apprehension === true) parts.push('apreensão do veículo');
  return parts.length > 0 ? parts.join(' · ') : '—';
}

/** What the escalation field says, whatever shape a pack gives it (text, flag or a small record). */
export function escalationLabel(escalation: unknown): string | null {
  if (escalation === undefined || escalation === null || escalation === false) return null;
  if (typeof escalation === 'string') return escalation || null;
  if (escalation === true) return 'Yes';
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
  const earlier = count === 0 ? 'No earlier violation' : `${count} earlier`;
  return days === null ? earlier : `${earlier} within ${days} days`;
}

export function formatNumber(value: number, maximumFractionDigits = 2): string {
  return value.toLocaleString(undefined, { maximumFractionDigits });
}
