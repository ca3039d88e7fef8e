import type { FeatureCollection } from 'geojson';
import type { GeoJSONSource, Map as MapLibreMap } from 'maplibre-gl';
import type { Pack } from '../api-types.js';
import { element } from '../dom.js';
import { packTimeZone, timeZoneLabel } from '../legal-time.js';
import { servedAreas } from '../served-areas.js';
import { AnalyticsChart, countAxis } from './analytics-chart.js';
import { count, decimal } from './analytics-format.js';
import { analyticsMessages as m } from './analytics-messages.js';
import type { HeatCell, ViolationHeatResponse } from './analytics-types.js';
import {
  csvButton,
  dataTable,
  field,
  type PageContext,
  PeriodPicker,
  pageFrame,
  QueryRunner,
  select,
} from './analytics-view.js';

export const heatSourceId = 'analytics-heat';
export const heatLayerId = 'analytics-heat';
export const heatCellsLayerId = 'analytics-heat-cells';

const packs: Pack[] = ['df-taxi', 'belem-taxi', 'sp-fretamento'];
const packArea: Record<Pack, (typeof servedAreas)[number]['id']> = {
  'df-taxi': 'brasilia',
  'belem-taxi': 'belem',
  'sp-fretamento': 'sao-paulo',
};
/** The cells listed under the chart; the map shows them all. */
const tableRows = 25;
/** Cell circles take over from the blur from this zoom, where a cell is several streets across. */
const cellsMinZoom = 12;

/**
 * Heat map of violations by rule: the H3 cells of the answer drawn as a MapLibre heatmap on the
 * desk's own map (shown beside the page), weighted by their counts; rule, cell size and period
 * pickers; the counts per rule as bars and the busiest cells in a table, each able to fly there.
 */
export function mountViolationHeatPage(
  container: HTMLElement,
  context: PageContext,
  map: Promise<MapLibreMap> | null,
): () => void {
  const h = m.heat;
  const frame = pageFrame(h.heading, h.intro);
  let pack: Pack = 'df-taxi';
  let ruleId = '';
  let resolution = '8';
  const knownRules = new Set<string>();
  const packSelect = select(
    'pack',
    packs.map((p) => [p, m.packs[p] ?? p]),
    pack,
  );
  const ruleSelect = select('ruleId', [['', h.allRules]], ruleId);
  const resolutionSelect = select(
    'resolution',
    ['7', '8', '9'].map((r) => [r, h.resolutions[r] ?? r]),
    resolution,
  );
  const picker = PeriodPicker.lastDays(packTimeZone(pack), context.now(), () => load(), frame.controls);
  const query = () => ({ pack, ruleId: ruleId || undefined, resolution, from: picker.value.from, to: picker.value.to });
  frame.controls.append(
    field(m.packLabel, packSelect),
    field(h.ruleLabel, ruleSelect),
    field(h.resolutionLabel, resolutionSelect),
    picker.root,
    csvButton(
      context,
      frame.state,
      () => 'violation-heat',
      query,
      () => m.csvFile(`infracoes-${pack}${ruleId ? `-${ruleId}` : ''}`, picker.value.from, picker.value.to),
    ),
  );
  packSelect.addEventListener('change', () => {
    pack = packs.find((p) => p === packSelect.value) ?? 'df-taxi';
    ruleId = '';
    knownRules.clear();
    picker.setZone(packTimeZone(pack));
    void load();
  });
  ruleSelect.addEventListener('change', () => {
    ruleId = ruleSelect.value;
    void load();
  });
  resolutionSelect.addEventListener('change', () => {
    resolution = resolutionSelect.value;
    void load();
  });

  const chart = new AnalyticsChart(h.chart);
  const runner = new QueryRunner<ViolationHeatResponse>(context, frame.state, (answer) => render(answer));
  const load = () => runner.run((api) => api.get<ViolationHeatResponse>('violation-heat', query()));
  let mapReady: MapLibreMap | null = null;
  let disposed = false;

  function render(a: ViolationHeatResponse): void {
    for (const rule of a.rules) knownRules.add(rule.ruleId);
    ruleSelect.replaceChildren(
      ...[['', h.allRules, false] as const, ...[...knownRules].sort().map((r) => [r, r, true] as const)].map(
        ([value, label, data]) => {
          const option = element('option', undefined, label);
          option.value = value;
          if (data) option.dataset.value = '';
          return option;
        },
      ),
    );
    ruleSelect.value = ruleId;
    const summary = element('div', 'analytics-summary');
    const total = element('p', 'analytics-summary__main', h.total(count(a.total)));
    total.dataset.total = String(a.total);
    summary.append(total, element('p', 'analytics-summary__zone', m.timesIn(timeZoneLabel(a.timeZone))));
    chart.show({
      tooltip: { trigger: 'axis' },
      grid: { left: 48, right: 16, top: 16, bottom: 96 },
      xAxis: { type: 'category', data: a.rules.map((r) => r.ruleId), axisLabel: { rotate: 30, interval: 0 } },
      yAxis: countAxis(),
      series: [
        {
          name: h.chart,
          type: 'bar',
          barMaxWidth: 48,
          data: a.rules.map((r) => ({
            value: r.count,
            itemStyle: { color: r.ruleId === ruleId ? '#dc2626' : '#2563eb' },
          })),
        },
      ],
    });
    const c = h.columns;
    const table = dataTable<HeatCell>(
      h.heading,
      [
        {
          header: c.cell,
          cell: (cell) => {
            const button = element('button', 'analytics-link', h.cellAt(decimal(cell.lat, 4), decimal(cell.lon, 4)));
            button.type = 'button';
            button.title = h.showOnMap;
            button.addEventListener('click', () => mapReady?.flyTo({ center: [cell.lon, cell.lat], zoom: 14 }));
            return button;
          },
        },
        { header: c.count, cell: (cell) => count(cell.count), numeric: true },
      ],
      a.cells.slice(0, tableRows),
    );
    table.dataset.table = 'violation-heat';
    const charts = element('div', 'analytics-charts');
    charts.append(chart.root);
    frame.body.replaceChildren(summary, charts, table);
    if (a.total === 0) frame.state.empty();
    void map?.then((ready) => {
      if (!disposed) drawCells(ready, a, pack);
    });
  }

  container.replaceChildren(frame.root);
  void map?.then((ready) => {
    mapReady = ready;
  });
  void load();
  return () => {
    disposed = true;
    chart.dispose();
    if (mapReady) removeHeat(mapReady);
  };
}

function drawCells(map: MapLibreMap, answer: ViolationHeatResponse, pack: Pack): void {
  const max = Math.max(1, ...answer.cells.map((c) => c.count));
  const data: FeatureCollection = {
    type: 'FeatureCollection',
    features: answer.cells.map((c) => ({
      type: 'Feature',
      geometry: { type: 'Point', coordinates: [c.lon, c.lat] },
      properties: { h3: c.h3, count: c.count, weight: c.count / max },
    })),
  };
  const source = map.getSource<GeoJSONSource>(heatSourceId);
  if (source) source.setData(data);
  else {
    map.addSource(heatSourceId, { type: 'geojson', data });
    map.addLayer({
      id: heatLayerId,
      type: 'heatmap',
      source: heatSourceId,
      paint: {
        'heatmap-weight': ['get', 'weight'],
        'heatmap-intensity': ['interpolate', ['linear'], ['zoom'], 9, 1, 14, 2],
        'heatmap-radius': ['interpolate', ['linear'], ['zoom'], 9, 18, 12, 36, 15, 80],
        'heatmap-opacity': ['interpolate', ['linear'], ['zoom'], cellsMinZoom, 0.85, cellsMinZoom + 3, 0.4],
        'heatmap-color': [
          'interpolate',
          ['linear'],
          ['heatmap-density'],
          0,
          'rgba(37, 99, 235, 0)',
          0.2,
          'rgba(37, 99, 235, 0.55)',
          0.45,
          '#facc15',
          0.7,
          '#f97316',
          1,
          '#dc2626',
        ],
      },
    });
    map.addLayer({
      id: heatCellsLayerId,
      type: 'circle',
      source: heatSourceId,
      minzoom: cellsMinZoom,
      paint: {
        'circle-radius': ['interpolate', ['linear'], ['get', 'weight'], 0, 6, 1, 18],
        'circle-color': '#dc2626',
        'circle-opacity': 0.35,
        'circle-stroke-color': '#7f1d1d',
        'circle-stroke-width': 1,
      },
    });
  }
  // Frame the cells; with none, the pack's served area.
  if (answer.cells.length > 0) {
    const lons = answer.cells.map((c) => c.lon);
    const lats = answer.cells.map((c) => c.lat);
    map.fitBounds(
      [
        [Math.min(...lons), Math.min(...lats)],
        [Math.max(...lons), Math.max(...lats)],
      ],
      { padding: 80, maxZoom: 14, duration: 0 },
    );
  } else {
    const area = servedAreas.find((a) => a.id === packArea[pack]);
    if (area) map.jumpTo({ center: area.center, zoom: area.zoom });
  }
}

function removeHeat(map: MapLibreMap): void {
  for (const id of [heatCellsLayerId, heatLayerId]) if (map.getLayer(id)) map.removeLayer(id);
  if (map.getSource(heatSourceId)) map.removeSource(heatSourceId);
}
