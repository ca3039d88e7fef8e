import { AddressView, type PlacesClient } from './address-lookup.js';
import type { Pack, ViolationDetail, ViolationItem, ViolationReview } from './api-types.js';
import { element, valueElement } from './dom.js';
import { legalTime, zoneName } from './legal-time.js';
import { type MeasuredRow, measuredRows } from './measured-values.js';
import { reviewerLabel } from './review-messages.js';
import {
  brlLabel,
  decisionLabels,
  escalationLabel,
  formatNumber,
  localDateTimeLabel,
  placeKindLabel,
  recidivismLabel,
  regulationLabel,
  statusLabels,
} from './violation-format.js';
import { violationMessages } from './violation-messages.js';
import { violationColors } from './violation-style.js';

const t = violationMessages.detail;

/** What the detail knows beside the record: names the API gives as ids, and how the map drawing went. */
export interface DetailContext {
  operatorName: (operatorId: string | null) => string;
  /** What the map shows of the place ("Stop X, 30 m radius"), or why it could not be drawn. */
  place: { caption: string } | { problem: string } | null;
  /** The signed-in client, for the address (street first, coordinates second); absent: the coordinates alone. */
  places?: PlacesClient | null;
}

/**
 * The body of a violation's detail: everything an auto de infração rests on (RULES.md "What every
 * violation record carries"), in the order an officer checks it. Built from a list item while the
 * full record loads, so the panel never opens empty.
 */
export function renderDetailBody(violation: ViolationItem | ViolationDetail, context: DetailContext): HTMLElement[] {
  const detail = 'evidence' in violation ? violation : null;
  const sections: HTMLElement[] = [];

  const description = valueElement('p', 'detail-description', violation.description || violation.ruleId);
  description.lang = 'pt-BR';
  const english = valueElement('p', 'detail-description-en', violation.descriptionEn);
  english.lang = 'en';
  sections.push(section(t.description, description, english));

  const articles = element('ul', 'legal-basis');
  for (const article of violation.legalBasis) articles.append(valueElement('li', 'legal-basis__article', article));
  const regulation = valueElement('p', 'detail-note', regulationLabel(violation.pack));
  regulation.lang = 'pt-BR';
  sections.push(section(t.legalBasis, articles, regulation));

  sections.push(
    section(
      t.vehicleAndDriver,
      facts([
        [t.plate, data(violation.plate ?? '—')],
        [t.vehicle, data(violation.vehicleId)],
        [t.operator, data(context.operatorName(violation.operatorId))],
        [t.driver, violation.driverId === null ? t.driverUnknown : data(violation.driverId)],
      ]),
    ),
  );

  sections.push(
    section(
      t.when(zoneName(violation.pack, violation.startedAt)),
      facts([
        // The section's title names the zone once; the rows are on that clock.
        [t.started, instant(violation.startedAt, violation.pack)],
        [t.ended, violation.endedAt === null ? t.stillGoing : instant(violation.endedAt, violation.pack)],
        [t.detected, instant(violation.detectedAt, violation.pack)],
      ]),
    ),
  );

  const where: Array<[string, string | DataText]> = [];
  if (violation.place) {
    where.push([placeKindLabel(violation.place.kind), data(`${violation.place.name} (${violation.place.id})`)]);
  }
  if (violation.lat !== null && violation.lon !== null && context.places !== undefined) {
    const address = new AddressView('detail-address');
    address.show(context.places, violation.lat, violation.lon);
    sections.push(section(t.where, address.element, ...(where.length > 0 ? [facts(where)] : [])));
  } else {
    where.push([
      t.position,
      violation.lat === null || violation.lon === null
        ? '—'
        : `${violation.lat.toFixed(6)}, ${violation.lon.toFixed(6)}`,
    ]);
    sections.push(section(t.where, facts(where)));
  }

  const measured = measuredRows(detail?.evidence.measured ?? violation.measured, violation.pack);
  sections.push(
    section(t.measured, measured.length > 0 ? measuredTable(measured) : element('p', 'detail-note', t.noMeasured)),
  );

  sections.push(section(t.penaltyHeading, facts(penaltyFacts(violation)), recidivismFacts(violation)));

  sections.push(section(t.evidence, evidenceSummary(detail, violation.pack, context)));

  if (detail) sections.push(section(t.reviewTrail, reviewTrail(detail.reviews, violation.pack)));
  return sections;
}

function penaltyFacts(violation: ViolationItem): Array<[string, string | DataText]> {
  const { penalty } = violation;
  const rows: Array<[string, string | DataText]> = [];
  if (typeof penalty.group === 'string') rows.push([t.group, data(penalty.group)]);
  if (typeof penalty.units === 'number') {
    rows.push([
      t.fine,
      data(`${formatNumber(penalty.units)}${typeof penalty.unit === 'string' ? ` ${penalty.unit}` : ''}`),
    ]);
  }
  if (typeof penalty.amountBrl === 'number') rows.push([t.amount, brlLabel(penalty.amountBrl)]);
  if (penalty.apprehension === true) rows.push([t.apprehension, t.apprehensionYes]);
  const escalation = escalationLabel(penalty.escalation);
  if (escalation) rows.push([t.escalation, data(escalation)]);
  if (rows.length === 0) rows.push([t.penaltyHeading, t.penaltyMissing]);
  return rows;
}

function recidivismFacts(violation: ViolationItem): HTMLElement {
  const { recidivism } = violation;
  const rows: Array<[string, string]> = [[t.recidivism, recidivismLabel(recidivism)]];
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
    wrapper.append(element('p', 'detail-note', t.evidenceLoading));
    return wrapper;
  }
  const { samples, window } = detail.evidence;
  wrapper.append(
    facts([
      [t.samples, formatNumber(samples.length)],
      [t.window, `${localDateTimeLabel(window.from, pack)} – ${localDateTimeLabel(window.to, pack)}`],
    ]),
  );
  if (samples.length === 0) {
    wrapper.append(element('p', 'detail-note', t.noSamples));
  }
  const legend = element('ul', 'evidence-legend');
  legend.append(
    legendItem('evidence-legend__line', violationColors.trace, t.legendTrace),
    legendItem('evidence-legend__sample', violationColors.trace, t.legendSample),
    legendItem('evidence-legend__start', violationColors.trace, t.legendFirst),
    legendItem('evidence-legend__end', violationColors.trace, t.legendLast),
    legendItem('evidence-legend__location', violationColors.mark, t.legendLocation),
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
  if (reviews.length === 0) return element('p', 'detail-note', t.notReviewed);
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
    const meta = element(
      'div',
      'review-trail__meta',
      `${reviewerLabel(review)} · ${localDateTimeLabel(review.at, pack)}`,
    );
    item.append(head, meta, valueElement('p', 'review-trail__reason', review.reason));
    list.append(item);
  }
  return list;
}

function section(title: string, ...content: HTMLElement[]): HTMLElement {
  const node = element('section', 'detail-section');
  node.append(element('h3', 'detail-section__title', title), ...content);
  return node;
}

/** A fact's value that is data (a plate, a name, an id), not interface text. */
interface DataText {
  data: string;
  /** Set for an instant: shown in a `<time>` carrying it. */
  dateTime?: string;
}

function data(text: string): DataText {
  return { data: text };
}

/** An instant on the pack's legal clock (the section's title names the zone). */
function instant(iso: string, pack: Pack): DataText {
  return { data: legalTime(iso, pack, 'weekday-date-time'), dateTime: iso };
}

function factValue(value: string | DataText): HTMLElement {
  if (typeof value === 'string') return element('dd', undefined, value);
  if (value.dateTime === undefined) return valueElement('dd', undefined, value.data);
  const dd = element('dd');
  const time = element('time', undefined, value.data);
  time.dateTime = value.dateTime;
  dd.append(time);
  return dd;
}

function facts(rows: ReadonlyArray<[string, string | DataText]>): HTMLElement {
  const list = element('dl', 'detail-facts');
  for (const [term, value] of rows) {
    list.append(element('dt', undefined, term), factValue(value));
  }
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
    th.dataset.valueTitle = '';
    if (row.labelFromKey) th.dataset.value = '';
    const td = element('td');
    // A measurement (a number with its unit, a time, an id) is data.
    td.dataset.value = '';
    if (typeof row.value === 'string') td.textContent = row.value;
    else td.append(measuredTable(row.value));
    tr.append(th, td);
    body.append(tr);
  }
  table.append(body);
  return table;
}
