import { element, valueElement } from '../dom.js';
import { legalTimeWithZone } from '../legal-time.js';
import { AnalyticsChart, flagColour, limitLine } from './analytics-chart.js';
import { count, percent } from './analytics-format.js';
import { analyticsMessages as m } from './analytics-messages.js';
import type { AuthorizationShare, AuthorizationSharesResponse } from './analytics-types.js';
import {
  csvButton,
  dataTable,
  field,
  legalBasis,
  type PageContext,
  pageFrame,
  QueryRunner,
  select,
} from './analytics-view.js';

type Pack = 'df-taxi' | 'belem-taxi';

/**
 * Share of the authorizations per operator against the 10 % cap on legal persons (Belém Art. 6
 * sole paragraph, DF Art. 10 sole paragraph): the registry as it is now, so no period. The first
 * bar is every legal person together, the figure the law caps; a company alone over it is red.
 */
export function mountAuthorizationSharesPage(container: HTMLElement, context: PageContext): () => void {
  const s = m.shares;
  const frame = pageFrame(s.heading, s.intro);
  let pack: Pack = 'belem-taxi';
  const packSelect = select(
    'pack',
    (['belem-taxi', 'df-taxi'] as const).map((p) => [p, m.packs[p] ?? p]),
    pack,
  );
  packSelect.addEventListener('change', () => {
    pack = packSelect.value === 'df-taxi' ? 'df-taxi' : 'belem-taxi';
    void load();
  });
  const chart = new AnalyticsChart(s.chartShare);
  frame.controls.append(
    field(m.packLabel, packSelect),
    csvButton(
      context,
      frame.state,
      () => 'authorization-shares',
      () => ({ pack }),
      () => m.csvFileNow(`autorizacoes-${pack}`, new Date(context.now()).toISOString().slice(0, 10)),
    ),
  );
  const runner = new QueryRunner<AuthorizationSharesResponse>(context, frame.state, (answer) => render(answer));
  const load = () => runner.run((api) => api.get<AuthorizationSharesResponse>('authorization-shares', { pack }));

  function render(a: AuthorizationSharesResponse): void {
    const summary = element('div', 'analytics-summary');
    const verdict = element(
      'p',
      a.legalPersons.overCap ? 'analytics-flag' : 'analytics-ok',
      `${s.legalPersons(percent(a.legalPersons.share), count(a.legalPersons.authorizations))} ${
        a.legalPersons.overCap ? s.overCap : s.withinCap
      }`,
    );
    verdict.dataset.overCap = String(a.legalPersons.overCap);
    summary.append(
      element('p', undefined, s.total(count(a.totalAuthorizations))),
      verdict,
      element('p', 'analytics-summary__zone', s.asOf(legalTimeWithZone(a.asOf, a.pack))),
    );
    const bars = [
      { label: s.legalPersonsBar, share: a.legalPersons.share ?? 0, over: a.legalPersons.overCap, total: true },
      ...a.operators.map((o) => ({ label: o.name, share: o.share ?? 0, over: o.overCap, total: false })),
    ];
    chart.show({
      tooltip: { trigger: 'axis', valueFormatter: (v) => percent(typeof v === 'number' ? v : null) },
      grid: { left: 56, right: 24, top: 24, bottom: 96 },
      xAxis: { type: 'category', data: bars.map((b) => b.label), axisLabel: { rotate: 30, interval: 0 } },
      yAxis: {
        type: 'value',
        min: 0,
        max: (extent: { max: number }) => Math.max(extent.max, a.capShare * 1.5),
        axisLabel: { formatter: (v: number) => percent(v, 0) },
      },
      series: [
        {
          name: s.chartShare,
          type: 'bar',
          barMaxWidth: 64,
          data: bars.map((b) => ({
            value: b.share,
            itemStyle: { color: b.over ? flagColour : b.total ? '#9333ea' : '#2563eb' },
          })),
          markLine: limitLine(a.capShare, s.chartCap),
        },
      ],
    });
    const c = s.columns;
    const table = dataTable<AuthorizationShare>(
      s.total(count(a.totalAuthorizations)),
      [
        { header: c.operator, cell: (o) => valueElement('span', undefined, o.name) },
        { header: c.kind, cell: (o) => s.kinds[o.kind] ?? o.kind },
        { header: c.legalPerson, cell: (o) => (o.legalPerson ? s.yes : s.no) },
        { header: c.authorizations, cell: (o) => count(o.authorizations), numeric: true },
        { header: c.share, cell: (o) => percent(o.share), numeric: true },
        { header: c.overCap, cell: (o) => (o.overCap ? s.yes : s.no) },
      ],
      a.operators,
      (o) => (o.overCap ? 'over-cap' : null),
    );
    table.dataset.table = 'authorization-shares';
    const charts = element('div', 'analytics-charts');
    charts.append(chart.root);
    frame.body.replaceChildren(summary, charts, table, legalBasis(a.legalBasis));
    if (a.totalAuthorizations === 0) frame.state.empty();
  }

  container.replaceChildren(frame.root);
  void load();
  return () => chart.dispose();
}
