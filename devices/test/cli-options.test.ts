import { describe, expect, it } from 'vitest';
import { parseCli } from '../src/cli-options.js';

describe('simulate CLI options', () => {
  it('uses the defaults and ADMIN_TOKEN from the environment', () => {
    const r = parseCli([], { ADMIN_TOKEN: 'secret-admin' });
    expect(r).toEqual({
      help: false,
      options: {
        apiUrl: 'http://127.0.0.1:3000',
        token: 'secret-admin',
        vehicles: 72,
        intervalMs: 2000,
        seed: 1,
        logLevel: 'info',
      },
    });
  });

  it('reads every flag, the flag winning over the environment', () => {
    const r = parseCli(
      [
        '--api-url',
        'http://api.local:3000',
        '--ingest-url',
        'http://ingest.local:3001',
        '--token',
        'from-flag',
        '--vehicles',
        '12',
        '--interval-ms',
        '500',
        '--seed',
        'scenario-a',
      ],
      { ADMIN_TOKEN: 'from-env', LOG_LEVEL: 'warn' },
    );
    expect(r).toMatchObject({
      help: false,
      options: {
        apiUrl: 'http://api.local:3000',
        ingestUrl: 'http://ingest.local:3001',
        token: 'from-flag',
        vehicles: 12,
        intervalMs: 500,
        seed: 'scenario-a',
        logLevel: 'warn',
      },
    });
  });

  it('asks for help', () => {
    expect(parseCli(['--help'], {})).toEqual({ help: true });
    expect(parseCli(['-h'], {})).toEqual({ help: true });
  });

  it.each([
    [[], {}, 'admin token'],
    [['--vehicles', '2'], { ADMIN_TOKEN: 't' }, 'vehicles'],
    [['--interval-ms', 'fast'], { ADMIN_TOKEN: 't' }, 'intervalMs'],
    [['--api-url', 'ftp://x'], { ADMIN_TOKEN: 't' }, 'apiUrl'],
    [['--colour', 'blue'], { ADMIN_TOKEN: 't' }, 'colour'],
  ] as const)('rejects %j', (argv, env, mentions) => {
    const r = parseCli(argv, env);
    expect('error' in r && r.error).toContain(mentions);
  });
});
