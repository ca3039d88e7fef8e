import type { OperatorItem, Pack, VehicleItem } from '../api-types.js';
import { element, valueElement } from '../dom.js';
import { defaultTimeZone, packTimeZone, timeZoneLabel } from '../legal-time.js';
import { AnalyticsChart, countAxis } from './analytics-chart.js';
import { count, decimal, hours, hoursNumber, km, kmNumber, minutes, monthLabel, percent } from './analytics-format.js';
import { analyticsMessages as m } from './analytics-messages.js';
import type {
  ActivityMonth,
  OperatorAnalyticsResponse,
  StandWait,
  VehicleAnalyticsResponse,
  ViolationCount,
} from './analytics-types.js';
import {
  csvButton,
  dataTable,
  describeError,
  field,
  type PageContext,
  PeriodPicker,
  pageFrame,
  QueryRunner,
  timeElement,
} from './analytics-view.js';

export type RecordKind = 'operators' | 'vehicles';
type RecordResponse = OperatorAnalyticsResponse | VehicleAnalyticsResponse;

interface Choice {
  id: string;
  label: string;
  pack: Pack | undefined;
}

/**
 * The record of one operator (its vehicles together) or one vehicle: violations by rule and month
 * (stacked bars), hours driven and hired with the Bandeira II share per month, and waiting times at
 * the stands. `initialId` comes from the address (`#analytics/vehicles/<id>`), which follows the
 * picker so a record can be linked.
 */
export function mountRecordPage(
  container: HTMLElement,
  context: PageContext,
  kind: RecordKind,
  initialId: string | null,
): () => void {
  const r = m.record;
  const frame = pageFrame(kind === 'operators' ? r.operatorHeading : r.vehicleHeading, r.intro);
  const picker = element('select', 'analytics-select');
  picker.name = kind === 'operators' ? 'operator' : 'vehicle';
  picker.dataset.picker = kind;
  const period = PeriodPicker.lastDays(defaultTimeZone, context.now(), () => load(), frame.controls);
  let choices: Choice[] = [];
  let chosen: string | null = initialId;
  const violationsChart = new AnalyticsChart(r.violationsChart);
  const activityChart = new AnalyticsChart(r.activityChart);
  const route = () => (chosen === null ? null : `${kind}/${encodeURIComponent(chosen)}`);
  const query = () => ({ from: period.value.from, to: period.value.to });
  frame.controls.append(
    field(kind === 'operators' ? r.operatorPicker : r.vehiclePicker, picker),
    period.root,
    csvButton(context, frame.state, route, query, () =>
      m.csvFile(
        `${kind === 'operators' ? 'operadora' : 'veiculo'}-${chosen ?? ''}`,
        period.value.from,
        period.value.to,
      ),
    ),
  );
  picker.addEventListener('change', () => {
    chosen = picker.value === '' ? null : picker.value;
    history.replaceState(null, '', `#analytics/${kind}${chosen ? `/${encodeURIComponent(chosen)}` : ''}`);
    const pack = choices.find((c) => c.id === chosen)?.pack;
    period.setZone(pack ? packTimeZone(pack) : defaultTimeZone);
    void load();
  });
  const runner = new QueryRunner<RecordResponse>(context, frame.state, (answer) => render(answer));
  const load = async () => {
    const path = route();
    if (path === null) {
      frame.body.replaceChildren();
      frame.state.message(r.nothingChosen);
      return;
    }
    await runner.run((api) => api.get<RecordResponse>(path, query()));
  };

  async function loadChoices(): Promise<void> {
    const api = context.api();
    if (api === null) {
      frame.state.message(m.signInFirst);
      return;
    }
    frame.state.loading();
    try {
      choices =
        kind === 'operators' ? operatorChoices(await api.listOperators()) : vehicleChoices(await api.listVehicles());
    } catch (error) {
      frame.state.error(describeError(error), () => void loadChoices());
      return;
    }
    if (choices.length === 0) {
      frame.state.message(r.noChoices);
      return;
    }
    const placeholder = element('option', undefined, r.choose);
    placeholder.value = '';
    picker.replaceChildren(placeholder);
    for (const choice of choices) {
      const option = valueElement('option', undefined, choice.label);
      option.value = choice.id;
      picker.append(option);
    }
    if (chosen !== null && !choices.some((c) => c.id === chosen)) chosen = null;
    picker.value = chosen ?? '';
    const pack = choices.find((c) => c.id === chosen)?.pack;
    if (pack) period.setZone(packTimeZone(pack));
    await load();
  }

  function render(a: RecordResponse): void {
    period.setZone(a.timeZone);
    const name = 'plate' in a ? a.plate : a.name;
    const summary = element('div', 'analytics-summary');
    const title = element('p', 'analytics-summary__main');
    title.append(valueElement('strong', 'analytics-record__name', name));
    if ('vehicles' in a) title.append(' · ', r.vehicles(count(a.vehicles)));
    summary.append(
      title,
      element(
        'p',
        undefined,
        r.summary(
          hours(a.totals.drivenS),
          hours(a.totals.hiredS),
          percent(a.totals.bandeira2Share),
          km(a.totals.distanceM),
        ),
      ),
      element('p', 'analytics-summary__zone', m.timesIn(timeZoneLabel(a.timeZone))),
    );

    // Every month with activity or violations, in order: the charts share their x axis.
    const months = [...new Set([...a.months.map((x) => x.month), ...a.violations.map((v) => v.month)])].sort();
    const monthLabels = months.map(monthLabel);
    const rules = [...new Set(a.violations.map((v) => v.ruleId))].sort();
    violationsChart.show({
      tooltip: { trigger: 'axis' },
      legend: { top: 0, type: 'scroll', data: rules },
      grid: { left: 48, right: 24, top: 48, bottom: 40 },
      xAxis: { type: 'category', data: monthLabels },
      yAxis: countAxis(),
      series: rules.map((ruleId) => ({
        name: ruleId,
        type: 'bar' as const,
        stack: 'violations',
        data: months.map((month) => a.violations.find((v) => v.month === month && v.ruleId === ruleId)?.count ?? 0),
      })),
    });
    const byMonth = new Map(a.months.map((x) => [x.month, x]));
    const monthHours = (pick: (x: ActivityMonth) => number) =>
      months.map((month) => {
        const x = byMonth.get(month);
        // Unrounded: a few minutes on Bandeira II must still show as a bar.
        return x ? pick(x) / 3600 : 0;
      });
    activityChart.show({
      tooltip: { trigger: 'axis', valueFormatter: (v) => hours(typeof v === 'number' ? v * 3600 : 0) },
      legend: { top: 0, data: [r.drivenSeries, r.hiredSeries, r.bandeira2Series] },
      grid: { left: 56, right: 24, top: 48, bottom: 40 },
      xAxis: { type: 'category', data: monthLabels },
      yAxis: { type: 'value', min: 0, axisLabel: { formatter: (v: number) => decimal(v, 2) } },
      series: [
        { name: r.drivenSeries, type: 'bar', data: monthHours((x) => x.drivenS), itemStyle: { color: '#2563eb' } },
        { name: r.hiredSeries, type: 'bar', data: monthHours((x) => x.hiredS), itemStyle: { color: '#16a34a' } },
        {
          name: r.bandeira2Series,
          type: 'bar',
          data: monthHours((x) => x.bandeira2HiredS),
          itemStyle: { color: '#ea580c' },
        },
      ],
    });
    const c = r.columns;
    const monthsTable = dataTable<ActivityMonth>(
      r.monthsHeading,
      [
        { header: c.month, cell: (x) => timeElement(monthLabel(x.month), x.month) },
        { header: c.driven, cell: (x) => hoursNumber(x.drivenS), numeric: true },
        { header: c.moving, cell: (x) => hoursNumber(x.movingS), numeric: true },
        { header: c.hired, cell: (x) => hoursNumber(x.hiredS), numeric: true },
        { header: c.bandeira2Share, cell: (x) => percent(x.bandeira2Share), numeric: true },
        { header: c.distance, cell: (x) => kmNumber(x.distanceM), numeric: true },
      ],
      a.months,
    );
    monthsTable.dataset.table = 'record-months';
    const violationsTable =
      a.violations.length === 0
        ? element('p', 'analytics-note', r.noViolations)
        : dataTable<ViolationCount>(
            r.violationsHeading,
            [
              { header: c.month, cell: (v) => timeElement(monthLabel(v.month), v.month) },
              { header: c.rule, cell: (v) => valueElement('span', undefined, v.ruleId) },
              { header: c.count, cell: (v) => count(v.count), numeric: true },
            ],
            a.violations,
          );
    violationsTable.dataset.table = 'record-violations';
    const standRows: Array<StandWait | (StandWait & { all: true })> = [
      ...a.standWaits.byStand,
      ...(a.standWaits.byStand.length > 1
        ? [{ ...a.standWaits.totals, standId: '', name: r.allStands, all: true as const }]
        : []),
    ];
    const standsTable =
      a.standWaits.totals.visits === 0
        ? element('p', 'analytics-note', r.noStandVisits)
        : dataTable<StandWait>(
            r.standsHeading,
            [
              {
                header: c.stand,
                cell: (s) =>
                  'all' in s ? element('strong', undefined, s.name) : valueElement('span', undefined, s.name),
              },
              { header: c.visits, cell: (s) => count(s.visits), numeric: true },
              { header: c.leftHired, cell: (s) => count(s.leftHired), numeric: true },
              { header: c.meanWait, cell: (s) => minutes(s.meanWaitS), numeric: true },
              { header: c.medianWait, cell: (s) => minutes(s.medianWaitS), numeric: true },
              { header: c.p90Wait, cell: (s) => minutes(s.p90WaitS), numeric: true },
            ],
            standRows,
          );
    standsTable.dataset.table = 'record-stands';
    const charts = element('div', 'analytics-charts');
    charts.append(violationsChart.root, activityChart.root);
    frame.body.replaceChildren(summary, charts, monthsTable, violationsTable, standsTable);
    if (months.length === 0 && a.standWaits.totals.visits === 0) frame.state.empty();
  }

  container.replaceChildren(frame.root);
  void loadChoices();
  return () => {
    violationsChart.dispose();
    activityChart.dispose();
  };
}

function operatorChoices(operators: OperatorItem[]): Choice[] {
  return operators
    .map((o) => ({ id: o.id, label: o.name, pack: o.pack }))
    .sort((x, y) => x.label.localeCompare(y.label));
}

function vehicleChoices(vehicles: VehicleItem[]): Choice[] {
  return vehicles
    .map((v) => ({ id: v.id, label: `${v.plate} · ${v.pack}`, pack: v.pack }))
    .sort((x, y) => x.label.localeCompare(y.label));
}
