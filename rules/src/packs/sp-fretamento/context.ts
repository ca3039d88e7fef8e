import type { SampleFacts } from '../../engine/sample-facts.js';
import type { CharterTripSignal } from './charter-trip.js';
import type { DwellSignal } from './dwell-detector.js';

/** What an sp-fretamento rule sees per sample: the sample facts plus the pack's derived signals. */
export interface SpContext extends SampleFacts {
  readonly dwell: DwellSignal;
  readonly charterTrip: CharterTripSignal;
}
