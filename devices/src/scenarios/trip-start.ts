import type { Pack } from '@vigia/core';
import { offsetM } from '../geo.js';
import { RegistryBuilder } from './registry.js';
import { site } from './sites.js';
import { describeLocal, localInstantMs } from './time.js';
import { Trace } from './trace.js';
import type { BuildContext, ScenarioPlan } from './types.js';

/**
 * Trips whose start the tracker may not have seen (rules/README.md "Overcharge is judged only on
 * complete traces", "DF meter before the ride"): a dropout that hides the boarding hides the
 * meter's start, the first kilometres and the door opening too.
 */

export interface HiddenStartOptions {
  pack: Pack;
  site: number;
  date: (ctx: BuildContext) => string;
  time: string;
  /**
   * Seconds without samples before the first hired one (the meter went hired, unseen, at the
   * start of it). Null: the tracker's first sample ever is already hired (an engine start).
   */
  silenceS: number | null;
  /** Metres the taxi drove hired during the silence (east). */
  hiddenM: number;
  /** The fare on the first hired sample. */
  firstFareCents: number;
  /** Metres driven east after the silence, hired, a sample every 5 s. */
  seenM: number;
  /** The fare at the end of the trip (10 s stopped). */
  fareCents: number;
}

/**
 * A hailed trip whose start may be hidden: 20 s free (unless the tracker starts hired), a silence
 * while the taxi drives `hiddenM` hired, then `seenM` hired, 10 s stopped showing `fareCents`,
 * and a minute free. One passenger.
 */
export function hiddenStartTrip(ctx: BuildContext, o: HiddenStartOptions): ScenarioPlan {
  const reg = new RegistryBuilder(ctx);
  const { vehicleId, deviceId } = reg.vehicle('taxi', o.pack);
  const start = localInstantMs(o.date(ctx), o.time);
  const tripId = `trip-${ctx.runId}`;
  const hired = { state: 'hired' as const, tariff: 1 as const, tripId };
  const origin = site(o.pack, o.site);
  const samples: Trace['samples'] = [];
  let resumeMs = start;
  if (o.silenceS !== null) {
    const free = new Trace(deviceId, start - 20_000, origin, { passengers: 0, meter: { state: 'free', tariff: 1 } });
    free.emit().stay(15);
    samples.push(...free.samples);
    resumeMs = free.atMs + o.silenceS * 1000;
  }
  const t = new Trace(deviceId, resumeMs, offsetM(origin, 0, o.hiddenM), {
    passengers: 1,
    meter: { ...hired, fareCents: o.firstFareCents },
  });
  t.emit(36).set({ meter: hired }).driveMetres(o.seenM, 36, 90);
  t.stay(10).set({ meter: { ...hired, state: 'stopped', fareCents: o.fareCents } });
  t.stay(10);
  t.set({ passengers: 0, meter: { state: 'free', tariff: 1 } }).stay(60);
  samples.push(...t.samples);
  return { registry: reg.steps, samples, dispatches: [], vehicleId, when: describeLocal(start) };
}

export interface HiddenBoardingOptions {
  pack: Pack;
  site: number;
  date: (ctx: BuildContext) => string;
  time: string;
  /** Seconds without samples between the last free sample and the first hired one. */
  silenceS: number;
  /** What the counter reads on the hired samples (the door stays closed: its opening went unseen). */
  count: number;
  /** Hired stretches driven east, in metres; between two, `pauseS` seconds without samples. */
  stretchesM: number[];
  pauseS?: number;
}

/**
 * DF_METER_BEFORE_RIDE near the boundary: free and empty with the door closed (a door sensor is
 * fitted), a silence, then the meter hired with the counter reading `count` and the door closed,
 * over `stretchesM` (separated by `pauseS` of silence), then free. The door is never seen open.
 */
export function hiddenBoardingTrip(ctx: BuildContext, o: HiddenBoardingOptions): ScenarioPlan {
  const reg = new RegistryBuilder(ctx);
  const { vehicleId, deviceId } = reg.vehicle('taxi', o.pack);
  const start = localInstantMs(o.date(ctx), o.time);
  const tripId = `trip-${ctx.runId}`;
  const t = new Trace(deviceId, start, site(o.pack, o.site), {
    passengers: 0,
    doorOpen: false,
    meter: { state: 'free', tariff: 1 },
  });
  t.emit().stay(30);
  t.wait(o.silenceS - 5).set({ passengers: o.count, meter: { state: 'hired', tariff: 1, fareCents: 1200, tripId } });
  o.stretchesM.forEach((metres, i) => {
    if (i > 0) t.wait((o.pauseS ?? 5) - 5);
    t.driveMetres(metres, 36, 90);
  });
  t.stay(10)
    .set({ passengers: 0, meter: { state: 'free', tariff: 1 } })
    .stay(30);
  return { registry: reg.steps, samples: t.samples, dispatches: [], vehicleId, when: describeLocal(start) };
}
