import { BarChart, type BarSeriesOption, LineChart, type LineSeriesOption } from 'echarts/charts';
import {
  GridComponent,
  type GridComponentOption,
  LegendComponent,
  type LegendComponentOption,
  MarkLineComponent,
  type MarkLineComponentOption,
  TooltipComponent,
  type TooltipComponentOption,
} from 'echarts/components';
import { type ComposeOption, type EChartsType, init, use } from 'echarts/core';
import { CanvasRenderer } from 'echarts/renderers';
import { element } from '../dom.js';
import { count } from './analytics-format.js';

// Only what the pages draw (bars, lines, a cap line, tooltips, legends on a canvas): the full
// ECharts build is several times larger.
use([BarChart, LineChart, GridComponent, LegendComponent, MarkLineComponent, TooltipComponent, CanvasRenderer]);

export type ChartOption = ComposeOption<
  | BarSeriesOption
  | LineSeriesOption
  | GridComponentOption
  | LegendComponentOption
  | MarkLineComponentOption
  | TooltipComponentOption
>;

/** The pages' palette: the dashboard's blue, its Bandeira II orange, then distinct hues for rules. */
export const chartColours = ['#2563eb', '#ea580c', '#16a34a', '#9333ea', '#dc2626', '#0891b2', '#ca8a04', '#db2777'];
export const flagColour = '#dc2626';
export const mutedColour = '#94a3b8';

/**
 * One chart of a page: a titled figure with an ECharts canvas, resized with its box. The series it
 * holds are written on the element (`data-series`: name, type and number of points of each, read
 * back from the ECharts instance) so a browser test can check what was drawn.
 */
export class AnalyticsChart {
  readonly root: HTMLElement;
  private readonly canvasBox: HTMLElement;
  private chart: EChartsType | null = null;
  private pending: ChartOption | null = null;
  private readonly resize = new ResizeObserver(() => this.chart?.resize());

  constructor(title: string) {
    this.root = element('figure', 'analytics-chart');
    this.canvasBox = element('div', 'analytics-chart__canvas');
    // The canvas is a picture of the table beside it: named for screen readers, which read the table.
    this.canvasBox.setAttribute('role', 'img');
    this.canvasBox.setAttribute('aria-label', title);
    this.root.append(element('figcaption', 'analytics-chart__title', title), this.canvasBox);
  }

  /**
   * Draws `option`. A page builds its charts and tables, then places them: the drawing waits for
   * the end of that (a microtask) when the chart is not in the document yet, since ECharts sizes
   * its canvas from the box it is given at the first draw.
   */
  show(option: ChartOption): void {
    this.pending = option;
    if (this.canvasBox.isConnected) this.draw();
    else queueMicrotask(() => this.draw());
  }

  private draw(): void {
    const option = this.pending;
    if (option === null || !this.canvasBox.isConnected) return;
    this.pending = null;
    if (this.chart === null) {
      this.chart = init(this.canvasBox, undefined, { renderer: 'canvas' });
      this.resize.observe(this.canvasBox);
    }
    this.chart.setOption({ animation: false, color: chartColours, ...option }, { notMerge: true });
    const drawn = this.chart.getOption().series;
    const series = Array.isArray(drawn) ? drawn : [];
    this.canvasBox.dataset.series = JSON.stringify(
      series.map((s: { name?: unknown; type?: unknown; data?: unknown }) => ({
        name: s.name,
        type: s.type,
        points: Array.isArray(s.data) ? s.data.length : 0,
      })),
    );
  }

  dispose(): void {
    this.resize.disconnect();
    this.chart?.dispose();
    this.chart = null;
  }
}

/** A legal limit drawn across a bar series: the 5 % sample, one taxi per 500, the 10 % cap. */
export function limitLine(value: number, label: string): MarkLineComponentOption {
  return {
    symbol: 'none',
    silent: true,
    lineStyle: { color: flagColour, type: 'dashed', width: 2 },
    label: { formatter: label, position: 'insideEndTop' },
    data: [{ yAxis: value }],
  };
}

/** A whole-number axis (violations), its labels in the interface's language. */
export function countAxis(): ChartOption['yAxis'] {
  return { type: 'value', min: 0, minInterval: 1, axisLabel: { formatter: (v: number) => count(v) } };
}

/** A percentage axis for shares 0..1, labelled by `format`. */
export function shareAxis(format: (share: number) => string, max?: number): ChartOption['yAxis'] {
  return { type: 'value', min: 0, ...(max !== undefined ? { max } : {}), axisLabel: { formatter: format } };
}
