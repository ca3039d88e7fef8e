import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { GatewayMetrics } from '../../src/gateways/index.js';

describe('gateway metrics', () => {
  it('renders the Prometheus text format: HELP and TYPE once per metric, one line per series, known series at 0', async () => {
    const m = new GatewayMetrics([{ protocol: 'teltonika', transport: 'tcp' }]);
    const tcp = { protocol: 'teltonika', transport: 'tcp' } as const;
    m.stored(tcp, 3);
    m.stored(tcp, 2);
    m.badInput(tcp, 'crc_mismatch');
    m.badInput(tcp, 'crc_mismatch');
    m.badInput(tcp, 'unknown_device');
    m.connectionOpened(tcp);
    m.connectionOpened(tcp);
    m.connectionClosed(tcp);
    const text = await m.toPrometheus();
    const lines = text.trimEnd().split('\n');
    expect(text.endsWith('\n')).toBe(true);
    expect(lines).toContain('# TYPE vigia_gateway_records_stored_total counter');
    expect(lines).toContain('vigia_gateway_records_stored_total{protocol="teltonika",transport="tcp"} 5');
    expect(lines).toContain('vigia_gateway_records_duplicate_total{protocol="teltonika",transport="tcp"} 0');
    expect(lines).toContain(
      'vigia_gateway_bad_input_total{protocol="teltonika",transport="tcp",reason="crc_mismatch"} 2',
    );
    expect(lines).toContain(
      'vigia_gateway_bad_input_total{protocol="teltonika",transport="tcp",reason="unknown_device"} 1',
    );
    expect(lines).toContain('# TYPE vigia_gateway_connections_open gauge');
    expect(lines).toContain('vigia_gateway_connections_open{protocol="teltonika",transport="tcp"} 1');
    expect(lines.filter((l) => l.startsWith('# TYPE vigia_gateway_bad_input_total'))).toHaveLength(1);
    // Every sample line is `name{labels} number`.
    const samples = lines.filter((x) => x !== '' && !x.startsWith('#'));
    expect(samples.length).toBeGreaterThan(5);
    for (const l of samples) expect(l).toMatch(/^[a-z_]+\{[^}]*\} -?\d+(\.\d+)?$/);
    expect(await m.value('badInput', { ...tcp, reason: 'crc_mismatch' })).toBe(2);
    expect(await m.value('openConnections', tcp)).toBe(1);
    expect(await m.value('badInput', { ...tcp, reason: 'never_seen' })).toBe(0);
  });

  it('escapes label values', async () => {
    const m = new GatewayMetrics();
    m.droppedField({ protocol: 'osmand', transport: 'http' }, 'a"b\\c\nd');
    expect(await m.toPrometheus()).toContain('field="a\\"b\\\\c\\nd"');
  });

  it('counts into the registry it is given, apart from every other registry', async () => {
    const shared = new Registry();
    const a = new GatewayMetrics([], shared);
    const b = new GatewayMetrics();
    const udp = { protocol: 'teltonika', transport: 'udp' } as const;
    a.ack(udp);
    a.ack(udp);
    b.ack(udp);
    expect(await shared.metrics()).toContain('vigia_gateway_acks_total{protocol="teltonika",transport="udp"} 2');
    expect(await b.value('acks', udp)).toBe(1);
    // Two sets of gateway metrics cannot share one registry: the names would clash.
    expect(() => new GatewayMetrics([], shared)).toThrow(/already been registered/);
  });
});
