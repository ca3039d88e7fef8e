import { LineChart } from 'echarts/charts';
import { GridComponent, MarkAreaComponent, TooltipComponent } from 'echarts/components';
import * as echarts from 'echarts/core';
import { CanvasRenderer } from 'echarts/renderers';
import type { Pack } from '../api-types.js';
import { element } from '../dom.js';
import { meterLabel } from '../format.js';
import { legalTime } from '../legal-time.js';
import type { ReplayClock } from './replay-clock.js';
import type { TrackPoint, VehicleTrack } from './replay-data.js';
import { meterColour } from './replay-map-layer.js';
import { replayMessages } from './replay-messages.js';

// Only what the timeline draws: the full ECharts bundle is several times larger.
echarts.use([LineChart, GridComponent, MarkAreaComponent, TooltipComponent, CanvasRenderer]);

const m = replayMessages.chart;
/** The violations' band on the timeline: the feed's alarm red, translucent so the speed reads through. */
const violationColour = 'rgba(220, 38, 38, 0.28)';
/** A violation without an end yet, or a moment, still gets a band one can see and point at. */
const minViolationBandMs = 20_000;

type Band = [{ xAxis: number; name?: string; itemStyle: { color: string } }, { xAxis: number }];

/** Runs of one meter state and tariff as coloured bands of the meter row. */
function meterBands(points: readonly TrackPoint[], to: number): Band[] {
  const bands: Band[] = [];
  for (let i = 0; i < points.length; i++) {
    const p = points[i] as TrackPoint;
    const prev = points[i - 1];
    if (prev && prev.meterState === p.meterState && prev.tariff === p.tariff && prev.line === p.line) continue;
    let j = i;
    while (j + 1 < points.length) {
      const q = points[j + 1] as TrackPoint;
      if (q.meterState !== p.meterState || q.tariff !== p.tariff || q.line !== p.line) break;
      j++;
    }
    const next = points[j + 1];
    // A run lasts until the next sample of its line; the last one of a line ends at its last sample.
    const end = next && next.line === p.line ? next.t : Math.min((points[j] as TrackPoint).t, to);
    bands.push([
      {
        xAxis: p.t,
        name: meterLabel(p.meterState, p.tariff),
        itemStyle: { color: meterColour(p.meterState, p.tariff) },
      },
      { xAxis: Math.max(end, p.t + 1000) },
    ]);
  }
  return bands;
}

/**
 * The timeline under the map: speed, the taxímetro (state and Bandeira as coloured bands),
 * passengers, and the violations as red bands across all three, on one time axis in the pack's
 * legal zone. A cursor follows the replay clock; a click on the chart moves the clock there.
 */
export class ReplayTimeline {
  readonly root = element('div', 'replay-timeline');
  private readonly canvas = element('div', 'replay-timeline__chart');
  private readonly cursor = element('div', 'replay-timeline__cursor');
  private readonly chart: echarts.ECharts;
  private track: VehicleTrack | null = null;

  constructor(private readonly clock: ReplayClock) {
    this.root.append(this.canvas, this.cursor);
    this.chart = echarts.init(this.canvas, undefined, { renderer: 'canvas' });
    this.chart.getZr().on('click', (event) => {
      if (!this.track) return;
      const [t] = this.chart.convertFromPixel({ gridIndex: 0 }, [event.offsetX, event.offsetY]) as number[];
      if (typeof t === 'number' && Number.isFinite(t)) clock.seek(t);
    });
    clock.subscribe(() => this.moveCursor());
    new ResizeObserver(() => {
      this.chart.resize();
      this.moveCursor();
    }).observe(this.canvas);
  }

  show(track: VehicleTrack): void {
    this.track = track;
    const pack: Pack = track.vehicle.pack;
    const points = track.points;
    const time = (value: number) => legalTime(value, pack, track.to - track.from > 86_400_000 / 2 ? 'minute' : 'time');
    // A gap breaks the lines: a null between two lines.
    const series = (value: (p: TrackPoint) => number | null) => {
      const data: [number, number | null][] = [];
      points.forEach((p, i) => {
        if (i > 0 && (points[i - 1] as TrackPoint).line !== p.line) data.push([p.t - 1, null]);
        data.push([p.t, value(p)]);
      });
      return data;
    };
    const violationBands: Band[] = track.violations.map((v) => [
      { xAxis: v.startedAt, name: v.ruleId, itemStyle: { color: violationColour } },
      { xAxis: Math.max(v.endedAt ?? v.startedAt, v.startedAt + minViolationBandMs) },
    ]);
    const xAxis = (gridIndex: number, labels: boolean) => ({
      type: 'time' as const,
      gridIndex,
      min: track.from,
      max: track.to,
      axisLabel: { show: labels, formatter: (value: number) => time(value), hideOverlap: true },
      splitLine: { show: false },
    });
    this.chart.setOption(
      {
        animation: false,
        grid: [
          { left: 48, right: 16, top: 20, height: '36%' },
          { left: 48, right: 16, top: '57%', height: '10%' },
          { left: 48, right: 16, top: '77%', height: '11%' },
        ],
        tooltip: {
          trigger: 'axis',
          axisPointer: { type: 'line' },
          valueFormatter: (value: unknown) => (value === null || value === undefined ? '—' : String(value)),
        },
        xAxis: [xAxis(0, false), xAxis(1, false), xAxis(2, true)],
        yAxis: [
          { type: 'value', gridIndex: 0, name: m.speed, nameGap: 6, nameTextStyle: { align: 'left' }, min: 0 },
          {
            type: 'value',
            gridIndex: 1,
            name: m.meter,
            nameGap: 6,
            nameTextStyle: { align: 'left' },
            show: true,
            axisLabel: { show: false },
            splitLine: { show: false },
          },
          {
            type: 'value',
            gridIndex: 2,
            name: m.passengers,
            nameGap: 6,
            nameTextStyle: { align: 'left' },
            min: 0,
            minInterval: 1,
            splitNumber: 2,
          },
        ],
        series: [
          {
            id: 'speed',
            name: m.speed,
            type: 'line',
            xAxisIndex: 0,
            yAxisIndex: 0,
            showSymbol: false,
            connectNulls: false,
            lineStyle: { width: 1.5, color: '#1f2937' },
            itemStyle: { color: '#1f2937' },
            data: series((p) => p.speedKmh),
            markArea: {
              silent: false,
              label: { show: true, position: 'insideTop', color: '#991b1b', fontSize: 10 },
              data: violationBands,
            },
          },
          {
            id: 'meter',
            name: m.meter,
            type: 'line',
            xAxisIndex: 1,
            yAxisIndex: 1,
            showSymbol: false,
            lineStyle: { opacity: 0 },
            tooltip: { show: false },
            data: [],
            markArea: {
              silent: true,
              label: { show: true, fontSize: 10, color: '#ffffff' },
              data: meterBands(points, track.to),
            },
          },
          {
            id: 'passengers',
            name: m.passengers,
            type: 'line',
            step: 'end',
            xAxisIndex: 2,
            yAxisIndex: 2,
            showSymbol: false,
            connectNulls: false,
            lineStyle: { width: 1.5, color: '#7c3aed' },
            itemStyle: { color: '#7c3aed' },
            data: series((p) => p.passengers),
            markArea: { silent: true, data: violationBands.map(([a, b]) => [{ ...a, name: '' }, b] as Band) },
          },
        ],
      },
      { notMerge: true },
    );
    this.root.dataset.violationMarks = String(violationBands.length);
    this.root.dataset.points = String(points.length);
    this.moveCursor();
  }

  private moveCursor(): void {
    if (!this.track) return;
    const [x] = this.chart.convertToPixel({ gridIndex: 0 }, [this.clock.t, 0]) as number[];
    if (typeof x !== 'number' || !Number.isFinite(x)) return;
    this.cursor.style.transform = `translateX(${x}px)`;
    this.root.dataset.cursorMs = String(Math.round(this.clock.t));
  }

  dispose(): void {
    this.chart.dispose();
  }
}
