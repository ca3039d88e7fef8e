import { createLogger } from '@vigia/core';
import { type RunningSimulator, startSimulator } from '@vigia/devices';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestSystem, type TestSystem } from './support.js';

interface Violation {
  ruleId: string;
  pack: string;
  penalty: { unit?: string | null; units?: number | null; amountBrl?: number | null; registryNonCompliance?: boolean };
}

/**
 * The demo as a new user meets it (devices/data/demo-registry/README.md): the simulated fleet
 * with the reference data the embedded demo registers, and within its first minutes a violation
 * of every rule family the demo's vices stand for — each fined in BRL where the regulation fixes
 * the fine in units (ORTN in São Paulo, IPCA-E in Belém; DF fines are a share of the UPDF set by
 * Anexo I, which the published text lacks, so they stay without an amount until configured).
 *
 * The fleet runs on a clock SPEED times faster than real time, starting on the next weekday at
 * 10:00 in Brasília (samples stamped ahead of the server's clock, within the raised
 * INGEST_MAX_FUTURE_SKEW_S): Bandeira II is unlawful in the daytime of a working day only, and the
 * reference data registered now is in force then.
 */

const SPEED = 30;
const VEHICLES = 72;
const WAIT_MS = 240_000;

/** The rule families the demo's vices stand for (fleet/vices.ts), with the rules of each. */
const FAMILIES: Record<string, readonly string[]> = {
  'over capacity': ['DF_OVER_CAPACITY', 'BEL_OVER_CAPACITY', 'FRET_OVER_CAPACITY'],
  'Bandeira II out of hours': ['DF_BANDEIRA2_MISUSE', 'BEL_BANDEIRA2_MISUSE'],
  'ride without the meter': ['DF_RIDE_WITHOUT_METER'],
  'unregistered driver': ['DF_UNREGISTERED_DRIVER'],
  'expired documents (permit, D.I.V., vistoria)': ['DF_PERMIT_EXPIRED', 'BEL_DIV_EXPIRED', 'FRET_INSPECTION_EXPIRED'],
  speeding: ['BEL_UNSAFE_DRIVING', 'FRET_UNSAFE_DRIVING'],
  tachograph: ['FRET_TACHOGRAPH_MISMATCH'],
  'boarding at regular-service stops': ['FRET_BOARDING_AT_REGULAR_STOP'],
  'no contract in force': ['FRET_NO_CONTRACT_IN_FORCE'],
};

/** The next Monday–Friday at 10:00 in Brasília (13:00 UTC) after `now`. */
function nextWeekdayMorning(now: number): number {
  const day = new Date(now);
  day.setUTCHours(13, 0, 0, 0);
  do day.setUTCDate(day.getUTCDate() + 1);
  while (day.getUTCDay() === 0 || day.getUTCDay() === 6);
  return day.getTime();
}

describe('the demo registers what the rules need, and every rule family fires in its first minutes', () => {
  let sys: TestSystem;
  let sim: RunningSimulator | undefined;
  beforeAll(async () => {
    sys = await startTestSystem('pglite', { INGEST_MAX_FUTURE_SKEW_S: String(5 * 86_400) });
    const t0 = Date.now();
    const simStart = nextWeekdayMorning(t0);
    sim = await startSimulator({
      apiUrl: sys.url,
      adminToken: sys.adminToken,
      vehicles: VEHICLES,
      intervalMs: 2000,
      seed: 1,
      clock: { now: () => simStart + (Date.now() - t0) * SPEED },
      demoReferenceData: true,
      logger: createLogger('simulator', 'silent'),
    });
  }, 180_000);
  afterAll(async () => {
    await sim?.stop();
    await sys?.stop();
  });

  it('registers unit values, holidays, zones, stops, stands and both kinds of charter contract', async () => {
    const list = async (collection: string) =>
      (await api<{ items: Record<string, unknown>[] }>(sys, 'GET', `/v1/${collection}?limit=1000`)).body.items;
    const units = (await list('unit-values')).map((u) => u.unit);
    expect(units).toEqual(expect.arrayContaining(['ORTN', 'IPCA-E', 'UPDF', 'UT']));
    expect((await list('holidays')).length).toBeGreaterThan(0);
    const zones = await list('zones');
    expect(zones.filter((z) => z.kind === 'airport').map((z) => z.pack)).toEqual(
      expect.arrayContaining(['df-taxi', 'belem-taxi']),
    );
    expect((await list('stops')).length).toBeGreaterThanOrEqual(12);
    const stands = await list('stands');
    expect(new Set(stands.map((s) => s.pack))).toEqual(new Set(['df-taxi', 'belem-taxi']));
    const kinds = new Set((await list('contracts')).map((c) => c.kind));
    expect(kinds).toEqual(new Set(['fretamento-continuo', 'fretamento-eventual']));
  }, 120_000);

  it(
    'raises a violation of every family, fined in BRL where the regulation fixes the units',
    async () => {
      const deadline = Date.now() + WAIT_MS;
      let seen: Violation[] = [];
      const missing = () =>
        Object.entries(FAMILIES)
          .filter(([, rules]) => !seen.some((v) => rules.includes(v.ruleId)))
          .map(([family]) => family);
      while (Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 5000));
        seen = (await api<{ items: Violation[] }>(sys, 'GET', '/v1/violations?limit=1000')).body.items;
        if (missing().length === 0) break;
      }
      const byRule = [...new Set(seen.map((v) => v.ruleId))].sort();
      console.log(
        `demo coverage after ${Math.round((WAIT_MS - (deadline - Date.now())) / 1000)} s: ${byRule.join(', ')}`,
      );
      expect(missing(), `rules seen: ${byRule.join(', ')}`).toEqual([]);

      // São Paulo (ORTN) and Belém (IPCA-E) fix their fines in units: every such fine has its amount.
      const fixed = seen.filter((v) => v.pack !== 'df-taxi' && v.penalty.units != null && v.penalty.unit != null);
      expect(fixed.length).toBeGreaterThan(0);
      for (const v of fixed) {
        expect(v.penalty.amountBrl, v.ruleId).toBeCloseTo(
          (v.penalty.units ?? 0) * (v.penalty.unit === 'ORTN' ? 40 : 5),
          2,
        );
      }
      expect(new Set(fixed.map((v) => v.penalty.unit))).toEqual(new Set(['ORTN', 'IPCA-E']));
    },
    WAIT_MS + 60_000,
  );
});
