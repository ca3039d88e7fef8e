/**
 * Counters of what the device gateways received, accepted and refused, in the Prometheus text
 * exposition format (version 0.0.4), for `GET /metrics`. Every kind of bad input has its own
 * `reason` label value, so an operator sees at a glance whether a fleet is sending corrupt frames,
 * unregistered identifiers or impossible positions — bad input is never silently dropped.
 *
 * A deliberately small registry: counters and gauges with fixed label names, no histograms. The
 * gateways own it; the process that serves `/metrics` only calls `toPrometheus()`.
 */

/** How the data arrived: `osmand` over HTTP, `teltonika` over TCP or UDP, `gt06` over TCP. */
export type GatewayProtocol = 'osmand' | 'teltonika' | 'gt06';
export type GatewayTransport = 'http' | 'tcp' | 'udp';

export interface Channel {
  protocol: GatewayProtocol;
  transport: GatewayTransport;
}

type MetricKind = 'counter' | 'gauge';

interface MetricDef {
  name: string;
  help: string;
  kind: MetricKind;
  /** Label names in output order. */
  labels: readonly string[];
}

const DEFS = {
  stored: {
    name: 'vigia_gateway_records_stored_total',
    help: 'Telemetry records received through a device gateway and durably stored.',
    kind: 'counter',
    labels: ['protocol', 'transport'],
  },
  duplicates: {
    name: 'vigia_gateway_records_duplicate_total',
    help: 'Records received again that were already stored (same device and time): re-sends after a lost ACK.',
    kind: 'counter',
    labels: ['protocol', 'transport'],
  },
  rejected: {
    name: 'vigia_gateway_records_rejected_total',
    help: 'Records refused and not stored (impossible position or time, no GPS position), by reason.',
    kind: 'counter',
    labels: ['protocol', 'transport', 'reason'],
  },
  quarantined: {
    name: 'vigia_gateway_records_quarantined_total',
    help: 'Records refused but acknowledged, kept in the quarantine table with their raw bytes (GET /v1/quarantine), by reason.',
    kind: 'counter',
    labels: ['protocol', 'transport', 'reason'],
  },
  droppedFields: {
    name: 'vigia_gateway_fields_dropped_total',
    help: 'Profile-mapped inputs left out of an otherwise stored record (unmapped or absurd value), by field.',
    kind: 'counter',
    labels: ['protocol', 'transport', 'field'],
  },
  badInput: {
    name: 'vigia_gateway_bad_input_total',
    help: 'Frames, requests or connections refused before any record was decoded, by reason.',
    kind: 'counter',
    labels: ['protocol', 'transport', 'reason'],
  },
  acks: {
    name: 'vigia_gateway_acks_total',
    help: 'Acknowledgements sent to devices (Teltonika record-count ACKs, OsmAnd HTTP 200s, GT06 serial echoes), each after the records were durable.',
    kind: 'counter',
    labels: ['protocol', 'transport'],
  },
  storageFailures: {
    name: 'vigia_gateway_storage_failures_total',
    help: 'Packets or requests not acknowledged because the records could not be stored (the device re-sends).',
    kind: 'counter',
    labels: ['protocol', 'transport'],
  },
  connections: {
    name: 'vigia_gateway_connections_total',
    help: 'Connections accepted by a device gateway.',
    kind: 'counter',
    labels: ['protocol', 'transport'],
  },
  openConnections: {
    name: 'vigia_gateway_connections_open',
    help: 'Device connections open now.',
    kind: 'gauge',
    labels: ['protocol', 'transport'],
  },
} as const satisfies Record<string, MetricDef>;

type MetricId = keyof typeof DEFS;

/** Label values may hold anything; the text format needs backslash, quote and newline escaped. */
function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

export class GatewayMetrics {
  /** Per metric: serialised label values → value. */
  private readonly series = new Map<MetricId, Map<string, number>>();

  constructor(channels: readonly Channel[] = []) {
    // Known series start at zero, so `rate()` works from the first scrape, not the first event.
    for (const c of channels) {
      for (const id of ['stored', 'duplicates', 'acks', 'storageFailures'] as const)
        this.add(id, [c.protocol, c.transport], 0);
      if (c.transport !== 'http') {
        this.add('connections', [c.protocol, c.transport], 0);
        this.add('openConnections', [c.protocol, c.transport], 0);
      }
    }
  }

  stored(c: Channel, n: number): void {
    this.add('stored', [c.protocol, c.transport], n);
  }

  duplicates(c: Channel, n: number): void {
    this.add('duplicates', [c.protocol, c.transport], n);
  }

  rejected(c: Channel, reason: string, n = 1): void {
    this.add('rejected', [c.protocol, c.transport, reason], n);
  }

  quarantined(c: Channel, reason: string, n = 1): void {
    this.add('quarantined', [c.protocol, c.transport, reason], n);
  }

  droppedField(c: Channel, field: string): void {
    this.add('droppedFields', [c.protocol, c.transport, field], 1);
  }

  badInput(c: Channel, reason: string): void {
    this.add('badInput', [c.protocol, c.transport, reason], 1);
  }

  ack(c: Channel): void {
    this.add('acks', [c.protocol, c.transport], 1);
  }

  storageFailure(c: Channel): void {
    this.add('storageFailures', [c.protocol, c.transport], 1);
  }

  connectionOpened(c: Channel): void {
    this.add('connections', [c.protocol, c.transport], 1);
    this.add('openConnections', [c.protocol, c.transport], 1);
  }

  connectionClosed(c: Channel): void {
    this.add('openConnections', [c.protocol, c.transport], -1);
  }

  /**
   * The current value of one series, e.g. `value('badInput', { protocol: 'teltonika', transport:
   * 'tcp', reason: 'crc_mismatch' })`; 0 when it was never touched.
   */
  value(id: MetricId, labels: Record<string, string>): number {
    const key = DEFS[id].labels.map((l) => labels[l] ?? '').join('\u0000');
    return this.series.get(id)?.get(key) ?? 0;
  }

  /** Every series in the Prometheus text format, metrics and series in a stable order. */
  toPrometheus(): string {
    const lines: string[] = [];
    for (const id of Object.keys(DEFS) as MetricId[]) {
      const def: MetricDef = DEFS[id];
      const values = this.series.get(id);
      if (!values || values.size === 0) continue;
      lines.push(`# HELP ${def.name} ${def.help}`, `# TYPE ${def.name} ${def.kind}`);
      for (const key of [...values.keys()].sort()) {
        const parts = key.split('\u0000');
        const labels = def.labels.map((l, i) => `${l}="${escapeLabel(parts[i] ?? '')}"`).join(',');
        lines.push(`${def.name}{${labels}} ${values.get(key)}`);
      }
    }
    return `${lines.join('\n')}\n`;
  }

  private add(id: MetricId, labelValues: readonly string[], n: number): void {
    let values = this.series.get(id);
    if (!values) {
      values = new Map();
      this.series.set(id, values);
    }
    const key = labelValues.join('\u0000');
    values.set(key, (values.get(key) ?? 0) + n);
  }
}
