import { ApiError, UnauthorizedError } from '../api-client.js';
import { downloadBlob, element } from '../dom.js';
import { timeZoneLabel } from '../legal-time.js';
import type { AnalyticsApi } from './analytics-api.js';
import { analyticsMessages as m } from './analytics-messages.js';
import { defaultPeriod, type LocalPeriod } from './analytics-period.js';

/**
 * The parts every analytics page is made of: a heading with its legal gloss, a period picker, the
 * loading/empty/error state, charts, tables and the CSV button. Pages put them together; none of
 * them knows a route.
 */

/** What a page gets from the desk: the signed-in API, the server's clock, the sign-in recheck. */
export interface PageContext {
  api(): AnalyticsApi | null;
  /** Epoch ms on the server's clock. */
  now(): number;
  onUnauthorized(): void;
}

export interface PageFrame {
  root: HTMLElement;
  /** The page's pickers (period, pack, operator…), one form: Enter applies. */
  controls: HTMLFormElement;
  /** Where the state (loading, empty, error) is announced. */
  state: LoadState;
  /** Summary, charts and tables: replaced on each load. */
  body: HTMLElement;
}

export function pageFrame(heading: string, intro: string): PageFrame {
  const root = element('section', 'analytics-page');
  const title = element('h2', 'analytics-page__heading', heading);
  title.tabIndex = -1;
  const controls = element('form', 'analytics-controls');
  controls.noValidate = true;
  controls.addEventListener('submit', (event) => event.preventDefault());
  const state = new LoadState();
  const body = element('div', 'analytics-page__body');
  root.append(title, element('p', 'analytics-page__intro', intro), controls, state.root, body);
  return { root, controls, state, body };
}

/** A labelled field of the controls form. */
export function field(label: string, control: HTMLElement): HTMLLabelElement {
  const wrapper = element('label', 'analytics-field');
  wrapper.append(element('span', 'analytics-field__label', label), control);
  return wrapper;
}

export function select(
  name: string,
  options: Array<[value: string, label: string, data?: boolean]>,
  value: string,
): HTMLSelectElement {
  const node = element('select', 'analytics-select');
  node.name = name;
  for (const [optionValue, label, data] of options) {
    const option = element('option', undefined, label);
    option.value = optionValue;
    if (data) option.dataset.value = '';
    node.append(option);
  }
  node.value = value;
  return node;
}

/** Loading, nothing to show, or failed (with a retry): announced politely, as the page's status. */
export class LoadState {
  readonly root = element('div', 'analytics-state');

  constructor() {
    this.root.setAttribute('role', 'status');
    this.root.setAttribute('aria-live', 'polite');
    this.root.hidden = true;
  }

  loading(): void {
    this.show('loading', [element('span', undefined, m.loading)]);
  }

  empty(text = m.empty): void {
    this.show('empty', [element('span', undefined, text)]);
  }

  message(text: string): void {
    this.show('message', [element('span', undefined, text)]);
  }

  error(message: string, retry?: () => void): void {
    const parts: HTMLElement[] = [element('span', undefined, m.failed(message))];
    if (retry) {
      const button = element('button', 'analytics-button', m.retry);
      button.type = 'button';
      button.addEventListener('click', retry);
      parts.push(button);
    }
    this.show('error', parts);
  }

  clear(): void {
    this.root.hidden = true;
    delete this.root.dataset.state;
    this.root.replaceChildren();
  }

  private show(state: string, parts: HTMLElement[]): void {
    this.root.hidden = false;
    this.root.dataset.state = state;
    this.root.replaceChildren(...parts);
  }
}

/** What an error says to a reader: the API's code and message, or the network's. */
export function describeError(error: unknown): string {
  if (error instanceof ApiError) return error.code ? `${error.message} (${error.code})` : error.message;
  if (error instanceof Error) return error.message;
  return String(error);
}

/**
 * Runs a page's query and hands the answer to its renderer; an answer that arrives after a newer
 * query started is dropped (the user changed the period meanwhile).
 */
export class QueryRunner<T> {
  private sequence = 0;

  constructor(
    private readonly context: PageContext,
    private readonly state: LoadState,
    private readonly render: (answer: T) => void,
  ) {}

  async run(load: (api: AnalyticsApi) => Promise<T>): Promise<void> {
    const api = this.context.api();
    if (api === null) {
      this.state.message(m.signInFirst);
      return;
    }
    const mine = ++this.sequence;
    this.state.loading();
    try {
      const answer = await load(api);
      if (mine !== this.sequence) return;
      this.state.clear();
      this.render(answer);
    } catch (error) {
      if (mine !== this.sequence) return;
      if (error instanceof UnauthorizedError) this.context.onUnauthorized();
      this.state.error(describeError(error), () => void this.run(load));
    }
  }
}

/**
 * The period picker: two local dates in the page's legal zone, named under them. Applied on
 * "Aplicar" or Enter; a start after the end is refused there, not sent.
 */
export class PeriodPicker {
  readonly root = element('fieldset', 'analytics-period');
  private readonly from = dateInput();
  private readonly to = dateInput();
  private readonly zone = element('span', 'analytics-period__zone');
  private readonly invalid = element('span', 'analytics-period__invalid', m.period.invalid);

  constructor(
    private period: LocalPeriod,
    timeZone: string,
    onApply: (period: LocalPeriod) => void,
    form: HTMLFormElement,
  ) {
    this.root.append(element('legend', 'analytics-period__legend', m.period.legend));
    this.from.value = period.from;
    this.to.value = period.to;
    this.from.dataset.period = 'from';
    this.to.dataset.period = 'to';
    const apply = element('button', 'analytics-button', m.period.apply);
    apply.type = 'submit';
    this.invalid.hidden = true;
    this.invalid.setAttribute('role', 'alert');
    this.root.append(field(m.period.from, this.from), field(m.period.to, this.to), apply, this.zone, this.invalid);
    this.setZone(timeZone);
    form.addEventListener('submit', () => {
      const next = { from: this.from.value, to: this.to.value };
      const valid = next.from !== '' && next.to !== '' && next.from <= next.to;
      this.invalid.hidden = valid;
      if (!valid) return;
      this.period = next;
      onApply(next);
    });
  }

  /** A picker set to the default period (the 30 local days up to today) on `timeZone`'s clock. */
  static lastDays(
    timeZone: string,
    nowMs: number,
    onApply: (period: LocalPeriod) => void,
    form: HTMLFormElement,
  ): PeriodPicker {
    return new PeriodPicker(defaultPeriod(timeZone, nowMs), timeZone, onApply, form);
  }

  get value(): LocalPeriod {
    return this.period;
  }

  setZone(timeZone: string): void {
    this.zone.textContent = m.period.zone(timeZoneLabel(timeZone));
  }
}

function dateInput(): HTMLInputElement {
  const input = element('input', 'analytics-date');
  input.type = 'date';
  input.required = true;
  return input;
}

/**
 * "Baixar CSV": the same route with `format=csv`, fetched with the token and handed to the browser
 * as a file. `query` is read at click time, so it is the period on screen.
 */
export function csvButton(
  context: PageContext,
  state: LoadState,
  route: () => string | null,
  query: () => Record<string, string | undefined>,
  filename: () => string,
): HTMLButtonElement {
  const button = element('button', 'analytics-button analytics-csv', m.csv);
  button.type = 'button';
  button.dataset.action = 'csv';
  button.addEventListener('click', async () => {
    const api = context.api();
    const path = route();
    if (api === null || path === null) return;
    button.disabled = true;
    button.textContent = m.csvBusy;
    try {
      downloadBlob(await api.csv(path, query()), filename());
    } catch (error) {
      if (error instanceof UnauthorizedError) context.onUnauthorized();
      state.error(describeError(error));
    } finally {
      button.disabled = false;
      button.textContent = m.csv;
    }
  });
  return button;
}

export interface Column<R> {
  header: string;
  /** A string is interface text or a formatted number; a Node (a `<time>`, a value element) is placed as is. */
  cell: (row: R) => string | Node;
  numeric?: boolean;
}

/** A table of the figures the chart draws: the accessible, exact form of the same data. */
export function dataTable<R>(
  caption: string,
  columns: Array<Column<R>>,
  rows: R[],
  rowFlag?: (row: R) => string | null,
): HTMLElement {
  const wrapper = element('div', 'analytics-table-wrap');
  const table = element('table', 'analytics-table');
  table.append(element('caption', undefined, caption));
  const head = element('tr');
  for (const column of columns) {
    const th = element('th', column.numeric ? 'analytics-table__num' : undefined, column.header);
    th.scope = 'col';
    head.append(th);
  }
  const thead = element('thead');
  thead.append(head);
  const tbody = element('tbody');
  for (const row of rows) {
    const tr = element('tr');
    const flag = rowFlag?.(row) ?? null;
    if (flag !== null) tr.dataset.flag = flag;
    for (const column of columns) {
      const td = element('td', column.numeric ? 'analytics-table__num' : undefined);
      td.append(column.cell(row));
      tr.append(td);
    }
    tbody.append(tr);
  }
  table.append(thead, tbody);
  wrapper.append(table);
  return wrapper;
}

/** A calendar label with letters ("nov. de 2026") as data: a `<time>` with its machine form. */
export function timeElement(label: string, machine: string): HTMLTimeElement {
  const node = element('time', undefined, label);
  node.dateTime = machine;
  return node;
}

/** The articles an answer rests on, under the figures. */
export function legalBasis(articles: string[]): HTMLElement {
  const note = element('p', 'analytics-legal');
  note.append(element('span', 'analytics-legal__label', m.legalBasis), ' ');
  const list = element('span', undefined, articles.join(' · '));
  list.dataset.value = '';
  note.append(list);
  return note;
}
