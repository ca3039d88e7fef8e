import { element } from '../dom.js';
import { packTimeZone, timeZoneLabel } from '../legal-time.js';
import { AnalyticsChart, flagColour, limitLine } from './analytics-chart.js';
import { count, decimal } from './analytics-format.js';
import { analyticsMessages as m } from './analytics-messages.js';
import type { FleetSizingResponse } from './analytics-types.js';
import {
  csvButton,
  dataTable,
  legalBasis,
  type PageContext,
  PeriodPicker,
  pageFrame,
  QueryRunner,
} from './analytics-view.js';

/**
 * Belém fleet sizing (Art. 5 §6, Art. 65): inhabitants per taxi, authorized and in service,
 * against the law's one taxi per 500 inhabitants. Below 500 inhabitants per taxi the fleet is over
 * the limit and no new authorization may be issued.
 */
export function mountFleetSizingPage(container: HTMLElement, context: PageContext): () => void {
  const f = m.fleetSizing;
  const frame = pageFrame(f.heading, f.intro);
  const zone = packTimeZone('belem-taxi');
  const picker = PeriodPicker.lastDays(zone, context.now(), () => load(), frame.controls);
  const chart = new AnalyticsChart(f.chartPerTaxi);
  const query = () => ({ from: picker.value.from, to: picker.value.to });
  frame.controls.append(
    picker.root,
    csvButton(
      context,
      frame.state,
      () => 'fleet-sizing',
      query,
      () => m.csvFile('dimensionamento-belem', picker.value.from, picker.value.to),
    ),
  );
  const runner = new QueryRunner<FleetSizingResponse>(context, frame.state, (answer) => render(answer));
  const load = () => runner.run((api) => api.get<FleetSizingResponse>('fleet-sizing', query()));

  function render(a: FleetSizingResponse): void {
    const verdict = a.overLimit
      ? element('p', 'analytics-flag', f.overLimit)
      : element('p', 'analytics-ok', f.withinLimit(count(-a.surplus)));
    verdict.dataset.overLimit = String(a.overLimit);
    const summary = element('div', 'analytics-summary');
    summary.append(verdict, element('p', 'analytics-summary__zone', m.timesIn(timeZoneLabel(a.timeZone))));
    chart.show({
      tooltip: { trigger: 'axis', valueFormatter: (v) => decimal(typeof v === 'number' ? v : null) },
      grid: { left: 64, right: 24, top: 24, bottom: 40 },
      xAxis: { type: 'category', data: [f.perAuthorized, f.perActive] },
      yAxis: { type: 'value', min: 0, axisLabel: { formatter: (v: number) => count(v) } },
      series: [
        {
          name: f.chartPerTaxi,
          type: 'bar',
          barMaxWidth: 96,
          // Fewer inhabitants per taxi than 500 is a fleet over the limit.
          data: [a.inhabitantsPerAuthorizedTaxi, a.inhabitantsPerActiveTaxi].map((value) => ({
            value: value ?? 0,
            itemStyle: { color: value !== null && value < a.inhabitantsPerTaxi ? flagColour : '#2563eb' },
          })),
          markLine: limitLine(a.inhabitantsPerTaxi, f.chartReference),
        },
      ],
    });
    const rows: Array<[string, string]> = [
      [f.population, count(a.population)],
      [f.allowed, count(a.allowedTaxis)],
      [f.authorized, count(a.authorizedTaxis)],
      [f.active, count(a.activeTaxis)],
      [f.perAuthorized, decimal(a.inhabitantsPerAuthorizedTaxi)],
      [f.perActive, decimal(a.inhabitantsPerActiveTaxi)],
      [f.surplus, count(a.surplus)],
    ];
    const table = dataTable<[string, string]>(
      f.populationSource(a.populationSource),
      [
        { header: f.figure, cell: ([label]) => label },
        { header: f.value, cell: ([, value]) => value, numeric: true },
      ],
      rows,
    );
    table.dataset.table = 'fleet-sizing';
    const charts = element('div', 'analytics-charts');
    charts.append(chart.root);
    frame.body.replaceChildren(summary, charts, table, legalBasis(a.legalBasis));
  }

  container.replaceChildren(frame.root);
  void load();
  return () => chart.dispose();
}
