import type { AlertEventType } from './alert-channel.js';

/**
 * The words of an alert e-mail, in Brazilian Portuguese: the people who read them are
 * enforcement officers of Brazilian agencies. Only wording lives here; what goes into the
 * message (which fields, the link, the local time) is decided in email-channel.ts.
 */
export interface AlertEmailFacts {
  type: AlertEventType;
  ruleId: string;
  /** The violation's own Portuguese wording (as an auto de infração carries it). */
  description: string;
  pack: string;
  plate: string | null;
  place: string | null;
  /** The local date and time where the violation happened, already formatted. */
  localTime: string;
  legalBasis: readonly string[];
  confidence: string;
  status: string;
  link: string;
}

export interface AlertEmailText {
  subject: string;
  text: string;
  html: string;
}

const eventTitles: Record<AlertEventType, string> = {
  'violation.raised': 'Nova infração',
  'violation.updated': 'Infração atualizada',
  'violation.reviewed': 'Infração revisada',
};

const confidenceLabels: Record<string, string> = {
  confirmed: 'confirmada (registro completo)',
  suspected: 'suspeita (requer verificação)',
};

const statusLabels: Record<string, string> = {
  open: 'aberta',
  confirmed: 'confirmada pela fiscalização',
  dismissed: 'descartada',
  notified: 'autuada',
};

const packLabels: Record<string, string> = {
  'sp-fretamento': 'Fretamento metropolitano (São Paulo)',
  'df-taxi': 'Táxi (Distrito Federal)',
  'belem-taxi': 'Táxi (Belém)',
};

const labels = {
  what: 'O que aconteceu',
  when: 'Data e hora (local)',
  where: 'Local',
  plate: 'Placa',
  rule: 'Regra',
  service: 'Serviço',
  legalBasis: 'Base legal',
  confidence: 'Confiabilidade',
  status: 'Situação',
  link: 'Ver a infração e as evidências no Vigia',
  noPlate: 'sem placa',
  noPlace: 'local não identificado',
  footer:
    'Mensagem automática do Vigia, enviada porque esta caixa de correio está inscrita nos alertas de infrações. Não responda a este e-mail.',
} as const;

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export function alertEmailText(f: AlertEmailFacts): AlertEmailText {
  const plate = f.plate ?? labels.noPlate;
  const place = f.place ?? labels.noPlace;
  const rows: Array<[string, string]> = [
    [labels.what, f.description],
    [labels.when, f.localTime],
    [labels.where, place],
    [labels.plate, plate],
    [labels.rule, f.ruleId],
    [labels.service, packLabels[f.pack] ?? f.pack],
    [labels.legalBasis, f.legalBasis.length > 0 ? f.legalBasis.join('; ') : '—'],
    [labels.confidence, confidenceLabels[f.confidence] ?? f.confidence],
    [labels.status, statusLabels[f.status] ?? f.status],
  ];
  const title = eventTitles[f.type];
  // Subject lines are cut by mail clients around 60–80 characters: the most telling first.
  const subject = `[Vigia] ${title}: ${f.ruleId} — placa ${plate} — ${place}`;
  const text = [
    `${title}`,
    '',
    ...rows.map(([k, v]) => `${k}: ${v}`),
    '',
    `${labels.link}: ${f.link}`,
    '',
    '--',
    labels.footer,
    '',
  ].join('\n');
  const html = [
    '<!doctype html><html lang="pt-BR"><head><meta charset="utf-8"></head><body style="font-family:sans-serif">',
    `<h2>${escapeHtml(title)}</h2>`,
    '<table cellpadding="4" style="border-collapse:collapse">',
    ...rows.map(([k, v]) => `<tr><th align="left" valign="top">${escapeHtml(k)}</th><td>${escapeHtml(v)}</td></tr>`),
    '</table>',
    `<p><a href="${escapeHtml(f.link)}">${escapeHtml(labels.link)}</a></p>`,
    `<p style="color:#666;font-size:smaller">${escapeHtml(labels.footer)}</p>`,
    '</body></html>',
  ].join('\n');
  return { subject, text, html };
}
