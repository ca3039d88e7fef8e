import { describe, expect, it } from 'vitest';
import { GatewayMetrics } from '../../src/gateways/index.js';

describe('gateway metrics', () => {
  it('renders the Prometheus text format: HELP and TYPE once per metric, one line per series, known series at 0', () => {
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
    const text = m.toPrometheus();
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
    for (const l of lines.filter((x) => !x.startsWith('#'))) expect(l).toMatch(/^[a-z_]+\{[^}]*\} -?\d+(\.\d+)?$/);
    expect(m.value('badInput', { ...tcp, reason: 'crc_mismatch' })).toBe(2);
  });

  it('escapes label values', () => {
    const m = new GatewayMetrics();
    m.droppedField({ protocol: 'osmand', transport: 'http' }, 'a"b\\c\nd');
    expect(m.toPrometheus()).toContain('field="a\\"b\\\\c\\nd"');
  });
});
