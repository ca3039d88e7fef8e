import type { SampleFacts } from '../../engine/sample-facts.js';
import type { StandSignal } from './stand-presence.js';
import type { TripSignal } from './taxi-trip.js';

/** What a taxi-pack rule sees per sample: the sample facts plus the meter trip and stand presence. */
export interface TaxiContext extends SampleFacts {
  readonly trip: TripSignal;
  readonly stands: StandSignal;
}

export const isHired = (ctx: SampleFacts): boolean =>
  ctx.sample.meterState === 'hired' || ctx.sample.meterState === 'stopped';
