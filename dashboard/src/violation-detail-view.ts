import type { Pack, ViolationDetail, ViolationItem, ViolationReview } from './api-types.js';
import { element } from './dom.js';
import { type MeasuredRow, measuredRows } from './measured-values.js';
import {
  brlLabel,
  decisionLabels,
  escalationLabel,
  formatNumber,
  localDateTimeLabel,
  packTimeZone,
  placeKindLabel,
  recidivismLabel,
  regulationLabel,
  statusLabels,
} from './violation-format.js';
import { violationColors } from './violation-style.js';

/** What the detail knows beside the record: names the API gives as ids, and how the map drawing went. */
export interface DetailContext {
  operatorName: (operatorId: string | null) => string;
  /** What the map shows of the place ("Stop X, 30 m radius"), or why it could not be drawn. */
  place: { caption: string } | { problem: string } | null;
}

/**
 * The body of a violation's detail: everything an auto de infração rests on (RULES.md "What every
 * violation record carries"), in the order an officer checks it. Built from a list item while the
 * full record loads, so the panel never opens empty.
 */
export function renderDetailBody(violation: ViolationItem | ViolationDetail, context: DetailContext): HTMLElement[] {
  const detail = 'evidence' in violation ? violation : null;
  const sections: HTMLElement[] = [];

  const description = element('p', 'detail-description', violation.description || violation.ruleId);
  description.lang = 'pt-BR';
  const english = element('p', 'detail-description-en', violation.descriptionEn);
  english.lang = 'en';
  sections.push(section('Description', description, english));

  const articles = element('ul', 'legal-basis');
  for (const article of violation.legalBasis) articles.append(element('li', 'legal-basis__article', article));
  const regulation = element('p', 'detail-note', regulationLabel(violation.pack));
  regulation.lang = 'pt-BR';
  sections.push(section('Legal basis', articles, regulation));

  sections.push(
    section(
      'Vehicle and driver',
      facts([
        ['Plate', violation.plate ?? '—'],
        ['Vehicle', violation.vehicleId],
        ['Operator', context.operatorName(violation.operatorId)],
        ['Driver', violation.driverId ?? 'Not identified by telemetry'],
      ]),
    ),
  );

  sections.push(
    section(
      `When (${packTimeZone(violation.pack)})`,
      facts([
        ['Started', localDateTimeLabel(violation.startedAt, violation.pack)],
        [
          'Ended',
          violation.endedAt === null ? 'Still going on' : localDateTimeLabel(violation.endedAt, violation.pack),
        ],
        ['Detected', localDateTimeLabel(violation.detectedAt, violation.pack)],
      ]),
    ),
  );

  const where: Array<[string, string]> = [];
  if (violation.place) {
    where.push([placeKindLabel(violation.place.kind), `${violation.place.name} (${violation.place.id})`]);
  }
  where.push([
    'Position',
    violation.lat === null || violation.lon === null ? '—' : `${violation.lat.toFixed(6)}, ${violation.lon.toFixed(6)}`,
  ]);
  sections.push(section('Where', facts(where)));

  const measured = measuredRows(detail?.evidence.measured ?? violation.measured, violation.pack);
  sections.push(
    section(
      'Measured values',
      measured.length > 0 ? measuredTable(measured) : element('p', 'detail-note', 'The rule recorded no values.'),
    ),
  );

  sections.push(section('Penalty', facts(penaltyFacts(violation)), recidivismFacts(violation)));

  sections.push(section('Evidence on the map', evidenceSummary(detail, violation.pack, context)));

  if (detail) sections.push(section('Review trail', reviewTrail(detail.reviews, violation.pack)));
  return sections;
}

function penaltyFacts(violation: ViolationItem): Array<[string, string]> {
  const { penalty } = violation;
  const rows: Array<[string, string]> = [];
  if (typeof penalty.group === 'string') rows.push(['Group', penalty.group]);
  if (typeof penalty.units === 'number') {
    rows.push(['Fine', `${formatNumber(penalty.units)}${typeof penalty.unit === 'string' ? ` ${penalty.unit}` : ''}`]);
  }
  if (typeof penalty.amountBrl === 'number') rows.push(['Amount', brlLabel(penalty.amountBrl)]);
  if (penalty.apprehension === true) rows.push(['Apprehension', 'Yes: apreensão do veículo']);
  const escalation = escalationLabel(penalty.escalation);
  if (escalation) rows.push(['Escalation', escalation]);
  if (rows.length === 0) rows.push(['Penalty', 'Not configured for this rule']);
  return rows;
}

function recidivismFacts(violation: ViolationItem): HTMLElement {
  const { recidivism } = violation;
  const rows: Array<[string, string]> = [['Recidivism', recidivismLabel(recidivism)]];
  // Packs add their own facts (fine multiplier, counts per group, escalation reached): show them as measured.
  const extra = Object.fromEntries(
    Object.entries(recidivism).filter(([key]) => key !== 'count' && key !== 'windowDays'),
  );
  const list = facts(rows);
  if (Object.keys(extra).length === 0) return list;
  const wrapper = element('div');
  wrapper.append(list, measuredTable(measuredRows(extra, violation.pack)));
  return wrapper;
}

function evidenceSummary(detail: ViolationDetail | null, pack: Pack, context: DetailContext): HTMLElement {
  const wrapper = element('div', 'evidence-summary');
  if (!detail) {
    wrapper.append(element('p', 'detail-note', 'Loading the evidence…'));
    return wrapper;
  }
  const { samples, window } = detail.evidence;
  wrapper.append(
    facts([
      ['Samples', samples.length.toLocaleString()],
      ['Window', `${localDateTimeLabel(window.from, pack)} – ${localDateTimeLabel(window.to, pack)}`],
    ]),
  );
  if (samples.length === 0) {
    wrapper.append(element('p', 'detail-note', 'No telemetry was stored for this vehicle in the evidence window.'));
  }
  const legend = element('ul', 'evidence-legend');
  legend.append(
    legendItem('evidence-legend__line', violationColors.trace, 'Trace'),
    legendItem('evidence-legend__sample', violationColors.trace, 'Sample (hover or click for readings)'),
    legendItem('evidence-legend__start', violationColors.trace, 'First sample'),
    legendItem('evidence-legend__end', violationColors.trace, 'Last sample'),
    legendItem('evidence-legend__location', violationColors.mark, 'Where the rule placed the violation'),
  );
  if (context.place && 'caption' in context.place) {
    legend.append(legendItem('evidence-legend__place', violationColors.place, context.place.caption));
  }
  wrapper.append(legend);
  if (context.place && 'problem' in context.place) {
    wrapper.append(element('p', 'detail-note detail-note--warning', context.place.problem));
  }
  return wrapper;
}

function legendItem(swatchClass: string, color: string, text: string): HTMLElement {
  const item = element('li', 'evidence-legend__item');
  const swatch = element('span', `evidence-legend__swatch ${swatchClass}`);
  swatch.style.setProperty('--swatch-color', color);
  item.append(swatch, element('span', undefined, text));
  return item;
}

function reviewTrail(reviews: readonly ViolationReview[], pack: Pack): HTMLElement {
  if (reviews.length === 0) return element('p', 'detail-note', 'Not reviewed yet.');
  const list = element('ol', 'review-trail');
  for (const review of reviews) {
    const item = element('li', 'review-trail__item');
    item.dataset.decision = review.decision;
    const head = element('div', 'review-trail__head');
    head.append(
      element('strong', undefined, decisionLabels[review.decision] ?? review.decision),
      element(
        'span',
        'review-trail__change',
        `${statusLabels[review.fromStatus] ?? review.fromStatus} → ${statusLabels[review.toStatus] ?? review.toStatus}`,
      ),
    );
    const meta = element('div', 'review-trail__meta', `${review.reviewer} · ${localDateTimeLabel(review.at, pack)}`);
    item.append(head, meta, element('p', 'review-trail__reason', review.reason));
    list.append(item);
  }
  return list;
}

function section(title: string, ...content: HTMLElement[]): HTMLElement {
  const node = element('section', 'detail-section');
  node.append(element('h3', 'detail-section__title', title), ...content);
  return node;
}

function facts(rows: ReadonlyArray<[string, string]>): HTMLElement {
  const list = element('dl', 'detail-facts');
  for (const [term, value] of rows) list.append(element('dt', undefined, term), element('dd', undefined, value));
  return list;
}

function measuredTable(rows: readonly MeasuredRow[]): HTMLTableElement {
  const table = element('table', 'measured-table');
  const body = element('tbody');
  for (const row of rows) {
    const tr = element('tr');
    tr.dataset.key = row.key;
    const th = element('th', undefined, row.label);
    th.scope = 'row';
    th.title = row.key;
    const td = element('td');
    if (typeof row.value === 'string') td.textContent = row.value;
    else td.append(measuredTable(row.value));
    tr.append(th, td);
    body.append(tr);
  }
  table.append(body);
  return table;
}
