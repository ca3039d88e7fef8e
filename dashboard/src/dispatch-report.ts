import { type ApiClient, ApiError, UnauthorizedError } from './api-client.js';
import { dispatchMessages as t } from './dispatch-messages.js';
import { clockDuration } from './dispatch-types.js';
import { downloadBlob, element } from './dom.js';
import { timeZoneLabel } from './legal-time.js';

export interface DispatchReportOptions {
  client: () => ApiClient | null;
  onUnauthorized: () => void;
}

/** The figures of `GET /v1/bookings/report`, per hour and in total. */
export interface ReportFigures {
  bookings: number;
  offered: number;
  acceptedFirstOffer: number;
  firstOfferAcceptedShare: number | null;
  accepted: number;
  acceptP50S: number | null;
  acceptP90S: number | null;
  pickupP50S: number | null;
  expired: number;
  cancelled: number;
}

export interface DispatchReport {
  timeZone: string;
  hours: Array<ReportFigures & { hour: string }>;
  totals: ReportFigures;
}

/** The report moves slowly (an hour at a time); a booking closing does not need it redrawn at once. */
const refreshMs = 60_000;
/** Hours listed: the latest, a dispatcher's shift; the CSV has them all. */
const hoursShown = 8;
const exportTimeoutMs = 60_000;
const soonMs = 5000;

/**
 * The cooperative's last 24 hours (`GET /v1/bookings/report`): bookings, share accepted on the
 * first offer, time to accept and to pickup, expired and cancelled, in total and per hour; the CSV
 * of the same (`format=csv`) as a download. Hidden when the server does not offer it.
 */
export class DispatchReportPanel {
  private readonly body: HTMLElement;
  private timer: number | undefined;
  private soon: number | undefined;

  constructor(
    private readonly root: HTMLElement,
    private readonly options: DispatchReportOptions,
  ) {
    const heading = element('div', 'dispatch-report__heading');
    const csv = element('button', 'dispatch-button dispatch-button--small', t.reportCsv);
    csv.type = 'button';
    csv.dataset.action = 'report-csv';
    csv.addEventListener('click', () => void this.download());
    heading.append(element('h2', 'panel-heading', t.reportHeading), csv);
    this.body = element('div', 'dispatch-report__body');
    root.append(heading, this.body);
    root.hidden = true;
  }

  /**
   * A booking was taken or closed: the figures changed. Asked again after a pause, so a busy hour's
   * stream of changes costs one request per few seconds, not one per change.
   */
  refreshSoon(): void {
    if (this.root.hidden && this.timer === undefined) return;
    if (this.soon !== undefined) return;
    this.soon = window.setTimeout(() => {
      this.soon = undefined;
      void this.refresh();
    }, soonMs);
  }

  async load(): Promise<void> {
    window.clearInterval(this.timer);
    await this.refresh();
    this.timer = window.setInterval(() => void this.refresh(), refreshMs);
  }

  private async refresh(): Promise<void> {
    const client = this.options.client();
    if (client === null) return;
    try {
      this.render(await client.getJson<DispatchReport>('/v1/bookings/report'));
      this.root.hidden = false;
    } catch (error) {
      if (error instanceof UnauthorizedError) this.options.onUnauthorized();
      // Not offered by this server, or not to this role: no panel rather than an error in the corner.
      if (error instanceof ApiError && (error.status === 404 || error.status === 403)) {
        this.root.hidden = true;
        window.clearInterval(this.timer);
        this.timer = undefined;
        return;
      }
      this.body.replaceChildren(element('p', 'dispatch-empty', t.reportFailed(describe(error))));
    }
  }

  private render(report: DispatchReport): void {
    const { totals } = report;
    const facts = element('dl', 'dispatch-report__totals');
    const share = totals.firstOfferAcceptedShare;
    const rows: Array<[string, string, string]> = [
      ['bookings', t.report.bookings, String(totals.bookings)],
      ['first-offer', t.report.firstOffer, share === null ? '—' : `${Math.round(share * 100)}%`],
      ['accept', t.report.timeToAccept, durations(totals.acceptP50S, totals.acceptP90S)],
      ['pickup', t.report.timeToPickup, totals.pickupP50S === null ? '—' : clockDuration(totals.pickupP50S)],
      ['expired', t.report.expired, String(totals.expired)],
      ['cancelled', t.report.cancelled, String(totals.cancelled)],
    ];
    for (const [key, label, value] of rows) {
      const item = element('div', 'dispatch-report__fact');
      item.dataset.figure = key;
      item.append(element('dt', undefined, label), element('dd', undefined, value));
      facts.append(item);
    }
    const table = element('table', 'dispatch-report__hours');
    const head = element('tr');
    for (const label of t.report.hourColumns) head.append(element('th', undefined, label));
    table.append(head);
    for (const hour of report.hours.slice(-hoursShown).reverse()) {
      const line = element('tr');
      for (const value of [hour.hour.slice(11, 16), hour.bookings, hour.accepted, hour.expired]) {
        line.append(element('td', undefined, String(value)));
      }
      table.append(line);
    }
    this.body.replaceChildren(facts, element('p', 'dispatch-note', t.report.caption(timeZoneLabel(report.timeZone))));
    if (report.hours.length > 0) this.body.append(table);
  }

  /** The CSV of the same report (`format=csv`). */
  private async download(): Promise<void> {
    const client = this.options.client();
    if (client === null) return;
    try {
      const response = await client.fetch(
        '/v1/bookings/report?format=csv',
        'GET',
        'text/csv',
        undefined,
        exportTimeoutMs,
      );
      downloadBlob(
        await response.blob(),
        t.report.csvFile(new Date().toISOString().slice(0, 16).replace(/[:T]/g, '-')),
      );
    } catch (error) {
      if (error instanceof UnauthorizedError) this.options.onUnauthorized();
      this.body.append(element('p', 'dispatch-empty', t.reportFailed(describe(error))));
    }
  }
}

function durations(p50: number | null, p90: number | null): string {
  if (p50 === null) return '—';
  return p90 === null ? clockDuration(p50) : t.report.medianAndP90(clockDuration(p50), clockDuration(p90));
}

function describe(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  return error instanceof Error ? error.message : String(error);
}
