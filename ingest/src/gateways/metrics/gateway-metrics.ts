import { Counter, Gauge, Registry } from 'prom-client';

/**
 * Counters of what the device gateways received, accepted and refused, as prom-client metrics
 * for `GET /metrics`. Every kind of bad input has its own `reason` label value, so an operator
 * sees at a glance whether a fleet is sending corrupt frames, unregistered identifiers or
 * impossible positions — bad input is never silently dropped.
 *
 * The metrics live in the registry they are given: the ingest service's own (one per service,
 * never prom-client's global registry, since a test process runs several systems side by side),
 * or a fresh one for gateways started alone.
 */

/** How the data arrived: `osmand` over HTTP, `teltonika` over TCP or UDP, `gt06` over TCP. */
export type GatewayProtocol = 'osmand' | 'teltonika' | 'gt06';
export type GatewayTransport = 'http' | 'tcp' | 'udp';

/** Also the label set of the per-channel series: callers pass their module-level constant, no allocation. */
export interface Channel {
  protocol: GatewayProtocol;
  transport: GatewayTransport;
}

type LabelName = 'protocol' | 'transport' | 'reason' | 'field';

interface MetricDef {
  name: string;
  help: string;
  kind: 'counter' | 'gauge';
  /** Label names in output order. */
  labels: readonly LabelName[];
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

export type GatewayMetricId = keyof typeof DEFS;
type CounterId = { [K in GatewayMetricId]: (typeof DEFS)[K]['kind'] extends 'counter' ? K : never }[GatewayMetricId];

export class GatewayMetrics {
  /** Where the metrics are registered; `registry.metrics()` renders them. */
  readonly registry: Registry;
  private readonly counters: Record<CounterId, Counter<LabelName>>;
  private readonly open: Gauge<LabelName>;

  constructor(channels: readonly Channel[] = [], registry: Registry = new Registry()) {
    this.registry = registry;
    const counter = (id: CounterId) =>
      new Counter<LabelName>({
        name: DEFS[id].name,
        help: DEFS[id].help,
        labelNames: DEFS[id].labels,
        registers: [registry],
      });
    this.counters = {
      stored: counter('stored'),
      duplicates: counter('duplicates'),
      rejected: counter('rejected'),
      quarantined: counter('quarantined'),
      droppedFields: counter('droppedFields'),
      badInput: counter('badInput'),
      acks: counter('acks'),
      storageFailures: counter('storageFailures'),
      connections: counter('connections'),
    };
    this.open = new Gauge<LabelName>({
      name: DEFS.openConnections.name,
      help: DEFS.openConnections.help,
      labelNames: DEFS.openConnections.labels,
      registers: [registry],
    });
    // Known series start at zero, so `rate()` works from the first scrape, not the first event.
    for (const c of channels) {
      for (const id of ['stored', 'duplicates', 'acks', 'storageFailures'] as const) this.counters[id].inc(c, 0);
      if (c.transport !== 'http') {
        this.counters.connections.inc(c, 0);
        this.open.set(c, 0);
      }
    }
  }

  stored(c: Channel, n: number): void {
    if (n > 0) this.counters.stored.inc(c, n);
  }

  duplicates(c: Channel, n: number): void {
    if (n > 0) this.counters.duplicates.inc(c, n);
  }

  rejected(c: Channel, reason: string, n = 1): void {
    this.counters.rejected.inc({ protocol: c.protocol, transport: c.transport, reason }, n);
  }

  quarantined(c: Channel, reason: string, n = 1): void {
    this.counters.quarantined.inc({ protocol: c.protocol, transport: c.transport, reason }, n);
  }

  droppedField(c: Channel, field: string): void {
    this.counters.droppedFields.inc({ protocol: c.protocol, transport: c.transport, field });
  }

  badInput(c: Channel, reason: string): void {
    this.counters.badInput.inc({ protocol: c.protocol, transport: c.transport, reason });
  }

  ack(c: Channel): void {
    this.counters.acks.inc(c);
  }

  storageFailure(c: Channel): void {
    this.counters.storageFailures.inc(c);
  }

  connectionOpened(c: Channel): void {
    this.counters.connections.inc(c);
    this.open.inc(c);
  }

  connectionClosed(c: Channel): void {
    this.open.dec(c);
  }

  /**
   * The current value of one series, e.g. `await value('badInput', { protocol: 'teltonika',
   * transport: 'tcp', reason: 'crc_mismatch' })`; 0 when it was never touched. For tests and
   * diagnostics: it reads the metric as a scrape would (prom-client reads are asynchronous).
   */
  async value(id: GatewayMetricId, labels: Partial<Record<LabelName, string>>): Promise<number> {
    const metric = id === 'openConnections' ? this.open : this.counters[id];
    const { values } = await metric.get();
    const names = DEFS[id].labels;
    const series = values.find((v) => names.every((l) => String(v.labels[l] ?? '') === (labels[l] ?? '')));
    return series?.value ?? 0;
  }

  /** The Prometheus text exposition of the registry these metrics are in. */
  toPrometheus(): Promise<string> {
    return this.registry.metrics();
  }
}
