import { describe, expect, it } from 'vitest';
import { parseCli } from '../src/cli-options.js';

describe('simulate CLI: device protocols', () => {
  it('leaves the protocol unset (native) unless asked', () => {
    const r = parseCli([], { ADMIN_TOKEN: 't' });
    expect('options' in r && r.options.protocol).toBeUndefined();
  });

  it('reads --protocol and the gateway addresses as host:port, IPv6 in brackets', () => {
    const r = parseCli(['--protocol', 'teltonika', '--teltonika', 'gw.local:6027', '--osmand', '[::1]:5055'], {
      ADMIN_TOKEN: 't',
    });
    expect(r).toMatchObject({
      help: false,
      options: {
        protocol: 'teltonika',
        teltonika: { host: 'gw.local', port: 6027 },
        osmand: { host: '::1', port: 5055 },
      },
    });
  });

  it('reads --protocol gt06 and mixed, and the GT06 gateway address', () => {
    const r = parseCli(['--protocol', 'gt06', '--gt06', '10.0.0.5:5023'], { ADMIN_TOKEN: 't' });
    expect(r).toMatchObject({ help: false, options: { protocol: 'gt06', gt06: { host: '10.0.0.5', port: 5023 } } });
    expect(parseCli(['--protocol', 'mixed'], { ADMIN_TOKEN: 't' })).toMatchObject({ options: { protocol: 'mixed' } });
  });

  it.each([
    [['--protocol', 'h02'], 'protocol'],
    [['--gt06', 'gw.local'], 'gt06'],
    [['--teltonika', 'gw.local'], 'teltonika'],
    [['--osmand', 'gw.local:99999'], 'osmand'],
  ] as const)('rejects %j', (argv, mentions) => {
    const r = parseCli(argv, { ADMIN_TOKEN: 't' });
    expect('error' in r && r.error).toContain(mentions);
  });
});
