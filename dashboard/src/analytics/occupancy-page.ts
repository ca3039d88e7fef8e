import { element } from '../dom.js';
import { packTimeZone, timeZoneLabel } from '../legal-time.js';
import { AnalyticsChart, flagColour, limitLine, mutedColour, shareAxis } from './analytics-chart.js';
import { count, hoursNumber, percent, periodLabel } from './analytics-format.js';
import { analyticsMessages as m } from './analytics-messages.js';
import { type LocalPeriod, periodDays } from './analytics-period.js';
import type { OccupancyPeriod, OccupancyResponse } from './analytics-types.js';
import {
  csvButton,
  dataTable,
  field,
  legalBasis,
  type PageContext,
  PeriodPicker,
  pageFrame,
  QueryRunner,
  select,
} from './analytics-view.js';

type Pack = 'df-taxi' | 'belem-taxi';
/** A month of hours at most: ANALYTICS_MAX_HOURLY_DAYS of api/src/analytics/analytics-schemas.ts (a value, not a type, so not imported). */
const maxHourlyDays = 31;
type By = 'day' | 'hour';

/**
 * DF occupancy index (Art. 6): the share of time and distance with the meter hired, per local day
 * or hour, with the sample of the fleet against the 5 % minimum. A period below the minimum stays
 * on the chart, in grey, and its row is flagged: it is not a valid survey.
 */
export function mountOccupancyPage(container: HTMLElement, context: PageContext): () => void {
  const frame = pageFrame(m.occupancy.heading, m.occupancy.intro);
  let pack: Pack = 'df-taxi';
  let by: By = 'day';
  const packSelect = select(
    'pack',
    (['df-taxi', 'belem-taxi'] as const).map((p) => [p, m.packs[p] ?? p]),
    pack,
  );
  const bySelect = select(
    'by',
    [
      ['day', m.occupancy.byDay],
      ['hour', m.occupancy.byHour],
    ],
    by,
  );
  const picker = PeriodPicker.lastDays(packTimeZone(pack), context.now(), () => load(), frame.controls);
  frame.controls.append(field(m.packLabel, packSelect), field(m.occupancy.byLabel, bySelect), picker.root);
  packSelect.addEventListener('change', () => {
    pack = packSelect.value === 'belem-taxi' ? 'belem-taxi' : 'df-taxi';
    picker.setZone(packTimeZone(pack));
    void load();
  });
  bySelect.addEventListener('change', () => {
    by = bySelect.value === 'hour' ? 'hour' : 'day';
    void load();
  });

  const timeChart = new AnalyticsChart(m.occupancy.chartTime);
  const sampleChart = new AnalyticsChart(m.occupancy.chartSample);
  const query = (period: LocalPeriod) => ({ pack, by, from: period.from, to: period.to });
  const csv = csvButton(
    context,
    frame.state,
    () => 'occupancy',
    () => query(picker.value),
    () => m.csvFile(`ocupacao-${pack}-${by}`, picker.value.from, picker.value.to),
  );
  const runner = new QueryRunner<OccupancyResponse>(context, frame.state, (answer) => render(answer));
  const load = async () => {
    // Asked here rather than refused by the API (400 RANGE_TOO_LARGE), in the reader's words.
    if (by === 'hour' && periodDays(picker.value) > maxHourlyDays) {
      frame.body.replaceChildren();
      frame.state.message(m.occupancy.hourlyTooLong(count(maxHourlyDays)));
      return;
    }
    await runner.run((api) => api.get<OccupancyResponse>('occupancy', query(picker.value)));
  };

  function render(answer: OccupancyResponse): void {
    const zone = answer.timeZone;
    const labels = answer.periods.map((p) => periodLabel(p.start, answer.by, zone));
    const insufficient = answer.periods.filter((p) => !p.sampleSufficient).length;
    const summary = element('div', 'analytics-summary');
    summary.append(
      element('p', undefined, m.occupancy.fleet(count(answer.fleet))),
      element(
        'p',
        'analytics-summary__main',
        m.occupancy.totals(
          percent(answer.totals.timeShare),
          percent(answer.totals.distanceShare),
          percent(answer.totals.sampleShare),
        ),
      ),
      element('p', 'analytics-summary__zone', m.timesIn(timeZoneLabel(zone))),
    );
    if (insufficient > 0) {
      const flag = element('p', 'analytics-flag', m.occupancy.insufficient(count(insufficient)));
      flag.dataset.insufficient = String(insufficient);
      summary.append(flag);
    }
    // Both charts: the periods along, shares up, in percent.
    const axes = (top: number) => ({
      tooltip: { trigger: 'axis' as const, valueFormatter: (v: unknown) => percent(typeof v === 'number' ? v : null) },
      grid: { left: 56, right: 24, top, bottom: 56 },
      xAxis: { type: 'category' as const, data: labels },
      yAxis: shareAxis((v) => percent(v, 0)),
    });
    timeChart.show({
      ...axes(40),
      legend: { top: 0, data: [m.occupancy.chartTime, m.occupancy.chartDistance] },
      series: [
        {
          name: m.occupancy.chartTime,
          type: 'bar',
          // A period below the 5 % sample is drawn in grey: shown, but not a valid survey.
          data: answer.periods.map((p) => ({
            value: p.timeShare ?? 0,
            itemStyle: { color: p.sampleSufficient ? '#2563eb' : mutedColour },
          })),
        },
        {
          name: m.occupancy.chartDistance,
          type: 'line',
          data: answer.periods.map((p) => p.distanceShare),
          connectNulls: false,
        },
      ],
    });
    sampleChart.show({
      ...axes(24),
      series: [
        {
          name: m.occupancy.chartSample,
          type: 'bar',
          data: answer.periods.map((p) => ({
            value: p.sampleShare ?? 0,
            itemStyle: { color: p.sampleSufficient ? '#16a34a' : flagColour },
          })),
          markLine: limitLine(answer.minSampleShare, m.occupancy.chartMinimum),
        },
      ],
    });
    const c = m.occupancy.columns;
    const table = dataTable<OccupancyPeriod>(
      m.timesIn(timeZoneLabel(zone)),
      [
        { header: c.period, cell: (p) => periodLabel(p.start, answer.by, zone) },
        { header: c.sampled, cell: (p) => count(p.sampledVehicles), numeric: true },
        { header: c.sampleShare, cell: (p) => sampleCell(p), numeric: true },
        { header: c.timeShare, cell: (p) => percent(p.timeShare), numeric: true },
        { header: c.distanceShare, cell: (p) => percent(p.distanceShare), numeric: true },
        { header: c.hiredHours, cell: (p) => hoursNumber(p.hiredS), numeric: true },
        { header: c.observedHours, cell: (p) => hoursNumber(p.observedS), numeric: true },
      ],
      answer.periods,
      (p) => (p.sampleSufficient ? null : 'insufficient'),
    );
    table.dataset.table = 'occupancy';
    frame.body.replaceChildren(summary, element('div', 'analytics-charts'), table, legalBasis(answer.legalBasis));
    frame.body.children[1]?.append(timeChart.root, sampleChart.root);
    if (answer.periods.every((p) => p.sampledVehicles === 0)) frame.state.empty();
  }

  function sampleCell(p: OccupancyPeriod): Node {
    const cell = element('span', undefined, percent(p.sampleShare));
    if (p.sampleSufficient) return cell;
    const badge = element('span', 'analytics-badge analytics-badge--flag', m.occupancy.belowMinimum);
    badge.title = m.occupancy.belowMinimumHint;
    const wrapper = element('span');
    wrapper.append(cell, ' ', badge);
    return wrapper;
  }

  frame.controls.append(csv);
  container.replaceChildren(frame.root);
  void load();
  return () => {
    timeChart.dispose();
    sampleChart.dispose();
  };
}
