import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { api, startTestSystem, type TestSystem } from '../../api/test/support.js';

/**
 * The embedded system the scenario tests play against: the tariff tables are decree data the
 * packs ship without (rules/README.md), so they are configured here as a regulator would, and
 * the DF tariff's unit (UT, Unidade Taximétrica) gets its BRL value through the registry — so
 * the overcharge rules are judged too.
 */
export async function startScenarioSystem(
  /** More of the system's environment (a test that plays devices through a gateway fixes its port). */
  env: Record<string, string> = {},
): Promise<{ sys: TestSystem; stop: () => Promise<void> }> {
  const configDir = await mkdtemp(join(tmpdir(), 'vigia-scenarios-'));
  const rulesConfig = join(configDir, 'rules.json');
  await writeFile(
    rulesConfig,
    JSON.stringify({
      'df-taxi': { tariff: { kmB1Ut: 1, waitingHourUt: 10 } },
      'belem-taxi': { tariff: { bandeiradaCents: 600, kmB1Cents: 400, kmB2Cents: 600, waitingHourCents: 3000 } },
    }),
  );
  const sys = await startTestSystem('pglite', {
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    RULES_CONFIG_FILE: rulesConfig,
    ...env,
  });
  const ut = await api(sys, 'POST', '/v1/unit-values', { unit: 'UT', valueBrl: 3, validFrom: '2020-01-01' });
  if (ut.status !== 201) throw new Error(`unit value: ${ut.status} ${JSON.stringify(ut.body)}`);
  return {
    sys,
    stop: async () => {
      await sys.stop();
      await rm(configDir, { recursive: true, force: true });
    },
  };
}
