/**
 * The benchmark's closing table: one line per scenario, throughput also as a share of the bare
 * COPY of the same kind of rows in the same run (the ceiling on this machine at this moment, so
 * the figure survives a busy neighbour better than records/s alone).
 */
import type { Measurement } from './scenario-measure.js';

export interface ScenarioRow {
  scenario: string;
  /** Records stored by this scenario, counted in the database. */
  stored: number;
  /** The generator's figures and the ingest's CPU; the COPY line has only sent and seconds. */
  measurement: Pick<Measurement, 'sent' | 'seconds'> & Partial<Measurement>;
  /** A yardstick that stores nothing (the HTTP floor): no share of COPY, no records lost. */
  reference?: true;
}

const DASH = '–';

export const recordsPerSecond = (row: ScenarioRow) => row.stored / row.measurement.seconds;

/** One line per scenario; `copyRate` is the COPY's records/s (undefined: no COPY in this run). */
export function formatTable(rows: readonly ScenarioRow[], copyRate: number | undefined): string {
  const header = [
    'scenario',
    'records',
    'records/s',
    '% of COPY',
    'ingest CPU µs/record',
    'ingest busy',
    'p50 ms',
    'p99 ms',
    'lost',
  ];
  const lines = rows.map((row) => {
    const m = row.measurement;
    const rate = recordsPerSecond(row);
    const cpuUs = m.totalCpuS === undefined ? undefined : (m.totalCpuS / Math.max(1, row.stored)) * 1e6;
    const busy = m.loadCpuS === undefined || !m.windowS ? undefined : m.loadCpuS / m.windowS;
    return [
      row.scenario,
      String(m.sent),
      String(Math.round(rate)),
      copyRate && !row.reference ? `${((100 * rate) / copyRate).toFixed(0)} %` : DASH,
      cpuUs === undefined ? DASH : cpuUs.toFixed(0),
      busy === undefined ? DASH : `${(100 * busy).toFixed(0)} %`,
      m.latencyMs ? m.latencyMs.p50.toFixed(1) : DASH,
      m.latencyMs ? m.latencyMs.p99.toFixed(1) : DASH,
      row.reference ? DASH : String(m.sent - row.stored),
    ];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]?.length ?? 0)));
  // The scenario name left-aligned, the figures right-aligned.
  const format = (cells: readonly string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join(' | ');
  return [format(header), widths.map((w) => '-'.repeat(w)).join('-|-'), ...lines.map(format)].join('\n');
}
