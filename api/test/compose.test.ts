import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { configSchema } from '@vigia/core';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { z } from 'zod';

/**
 * No Docker engine runs on this machine kind, so docker-compose.yml is checked statically: every
 * variable it gives our services is one their configuration schema knows, every command it runs
 * is an entry point of this repository, and every service has a health check.
 */
const root = fileURLToPath(new URL('../../', import.meta.url));
const composeSchema = z.object({
  services: z.record(
    z.string(),
    z.object({
      image: z.string().optional(),
      build: z.unknown().optional(),
      command: z.array(z.string()).optional(),
      environment: z.record(z.string(), z.union([z.string(), z.number()])).optional(),
      healthcheck: z.object({ test: z.array(z.string()) }).optional(),
      profiles: z.array(z.string()).optional(),
    }),
  ),
});
const compose = composeSchema.parse(parse(readFileSync(`${root}/docker-compose.yml`, 'utf8'), { merge: true }));
const ours = Object.entries(compose.services).filter(([, s]) => s.build !== undefined);
const known = new Set(Object.keys(configSchema.shape));

describe('docker-compose.yml', () => {
  it('runs TimescaleDB, Redis, ingest, api, and the simulator and k6 under profiles', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['api', 'ingest', 'k6', 'redis', 'simulator', 'timescaledb']);
    expect(compose.services.timescaledb?.image).toMatch(/^timescale\/timescaledb:/);
    expect(compose.services.simulator?.profiles).toEqual(['demo']);
    expect(compose.services.k6?.profiles).toEqual(['load']);
  });

  it('runs k6 on a script of load/k6 (the scenario K6_SCENARIO names, ingest by default)', () => {
    const k6 = compose.services.k6;
    expect(k6?.image).toMatch(/^grafana\/k6:\d+\.\d+\.\d+$/);
    const [verb, script] = k6?.command ?? [];
    expect(verb).toBe('run');
    expect(script).toMatch(/^\/load\/k6\/\$\{K6_SCENARIO:-ingest\}\.ts$/);
    for (const scenario of ['ingest', 'live', 'dispatch'])
      expect(existsSync(`${root}/load/k6/${scenario}.ts`)).toBe(true);
    expect(Object.keys(k6?.environment ?? {}).sort()).toEqual(['ADMIN_TOKEN', 'LOAD_API_URL', 'LOAD_INGEST_URL']);
  });

  it.each(ours)('%s sets only variables the configuration schema knows', (_name, service) => {
    const unknown = Object.keys(service.environment ?? {}).filter((k) => !known.has(k));
    expect(unknown).toEqual([]);
  });

  it.each(ours)('%s runs an entry point of this repository', (_name, service) => {
    const [bin, script] = service.command ?? [];
    expect(bin).toBe('node');
    // dist/x.js is built from src/x.ts by `npm run build` in the Dockerfile.
    const source = script?.replace(/\/dist\//, '/src/').replace(/\.js$/, '.ts');
    expect(source && existsSync(`${root}/${source}`)).toBe(true);
    const pkg = JSON.parse(readFileSync(`${root}/package.json`, 'utf8')) as { scripts: Record<string, string> };
    expect(Object.values(pkg.scripts).some((s) => s.includes(script ?? '<none>'))).toBe(true);
  });

  it('gives every long-running service a health check', () => {
    for (const [name, service] of Object.entries(compose.services)) {
      // The simulator and k6 are clients of the others, not services anything waits for.
      if (name === 'simulator' || name === 'k6') continue;
      expect(service.healthcheck?.test.length, name).toBeGreaterThan(0);
    }
  });

  it('builds the image that the services run with the repository’s own build', () => {
    const dockerfile = readFileSync(`${root}/Dockerfile`, 'utf8');
    expect(dockerfile).toMatch(/RUN npm ci/);
    expect(dockerfile).toMatch(/npm run build/);
  });
});
