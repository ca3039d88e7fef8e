import type { Pack } from '@vigia/core';
import { RegistryBuilder } from './registry.js';
import { site } from './sites.js';
import { describeLocal, localInstantMs } from './time.js';
import { Trace } from './trace.js';
import type { BuildContext, ScenarioPlan } from './types.js';

export interface HoraParadaOptions {
  pack: Pack;
  site: number;
  date: (ctx: BuildContext) => string;
  time: string;
  /** Metres driven east before and after the wait. */
  beforeM: number;
  afterM: number;
  /** The wait on *hora parada* (meter `stopped`): seconds, how far the fixes wander, their accuracy. */
  waitS: number;
  wanderM: number;
  accuracyM: number;
}

/**
 * A hailed trip that waits on *hora parada* halfway, its GPS fixes wandering around the spot
 * (DF Art. 37 j, Belém item 3.5: GPS jitter while waiting is not distance): free 20 s, hired east
 * `beforeM`, meter `stopped` for `waitS` with wandering fixes, hired east `afterM`, then free.
 */
export function horaParadaTrip(ctx: BuildContext, o: HoraParadaOptions): ScenarioPlan {
  const reg = new RegistryBuilder(ctx);
  const { vehicleId, deviceId } = reg.vehicle('taxi', o.pack);
  const start = localInstantMs(o.date(ctx), o.time);
  const tripId = `trip-${ctx.runId}`;
  const hired = (state: 'hired' | 'stopped', fareCents: number) => ({
    meter: { state, tariff: 1 as const, fareCents, tripId },
  });
  const t = new Trace(deviceId, start - 20_000, site(o.pack, o.site), {
    passengers: 0,
    meter: { state: 'free', tariff: 1 },
  });
  t.emit().stay(15);
  t.wait(5).set({ passengers: 1, ...hired('hired', 500) });
  t.emit().driveMetres(o.beforeM, 36, 90);
  t.set(hired('stopped', 900)).wander(o.waitS, o.wanderM, o.accuracyM);
  t.set({ ...hired('hired', 2500), accuracyM: 5 }).driveMetres(o.afterM, 36, 90);
  t.stay(10).set(hired('stopped', 3000)).stay(10);
  t.set({ passengers: 0, meter: { state: 'free', tariff: 1 } }).stay(60);
  return { registry: reg.steps, samples: t.samples, dispatches: [], vehicleId, when: describeLocal(start) };
}
