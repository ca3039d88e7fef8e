import { offsetM } from '../geo.js';
import { type StandOptions, standScene } from './taxi.js';
import type { BuildContext, SampleInput, ScenarioPlan } from './types.js';

/**
 * Stand scenes with a tracker fault of the kinds the precision harness plays
 * (devices/src/precision/faults.ts), applied to one taxi's samples: what a queue-jump decision
 * must read as a fault, not as the taxi leaving its place (rules/README.md "Stand presence under
 * GPS faults"). Times are seconds after the scene's start (the `arrive` clock of `standScene`).
 */
export type StandFault =
  /** `fixes` consecutive fixes from `atS` thrown `metres` north at a standstill (multipath). */
  | { kind: 'multipath'; atS: number; fixes: number; metres: number; accuracyM?: number }
  /** No sample strictly between `fromS` and `toS` (a dropout longer than general.maxGapS). */
  | { kind: 'dropout'; fromS: number; toS: number }
  /**
   * Between `fromS` and `toS` the reported accuracy degrades to `accuracyM` and every fix
   * wanders `metres` from the taxi, turning 50° a fix (an urban canyon).
   */
  | { kind: 'canyon'; fromS: number; toS: number; metres: number; accuracyM: number };

export interface FaultyStandOptions extends StandOptions {
  /** The faults, each on the taxi of that key. */
  faults: readonly (StandFault & { taxi: string })[];
}

export function faultyStandScene(ctx: BuildContext, o: FaultyStandOptions): ScenarioPlan {
  const plan = standScene(ctx, o);
  for (const fault of o.faults) {
    const taxi = o.taxis.find((x) => x.key === fault.taxi);
    if (!taxi) throw new Error(fault.taxi);
    // The same device naming as RegistryBuilder.vehicle.
    const deviceId = `SCN-${ctx.runId}-${fault.taxi}`.toUpperCase();
    const own = plan.samples.filter((s) => s.deviceId === deviceId);
    const first = own[0];
    if (!first) throw new Error(`no samples of ${fault.taxi}`);
    // A taxi's first sample is 30 s before it arrives (standScene's approach).
    const startMs = Date.parse(first.ts) - (taxi.arrive - 30) * 1000;
    const atS = (s: SampleInput): number => (Date.parse(s.ts) - startMs) / 1000;
    plan.samples = plan.samples.flatMap((s) => {
      if (s.deviceId !== deviceId) return [s];
      const t = atS(s);
      if (fault.kind === 'dropout') return t > fault.fromS && t < fault.toS ? [] : [s];
      if (fault.kind === 'multipath') {
        if (t < fault.atS || t >= fault.atS + 5 * fault.fixes) return [s];
        const p = offsetM(s, fault.metres, 0);
        return [
          { ...s, lat: round7(p.lat), lon: round7(p.lon), speedKmh: 0, accuracyM: fault.accuracyM ?? s.accuracyM },
        ];
      }
      if (t < fault.fromS || t > fault.toS) return [s];
      const turn = ((t - fault.fromS) / 5) * ((50 * Math.PI) / 180);
      const p = offsetM(s, fault.metres * Math.cos(turn), fault.metres * Math.sin(turn));
      return [{ ...s, lat: round7(p.lat), lon: round7(p.lon), accuracyM: fault.accuracyM }];
    });
  }
  return plan;
}

const round7 = (x: number): number => Number(x.toFixed(7));
