import { round } from '../../common/round.js';
import { sustainedRule } from '../../common/sustained-rule.js';
import type { TaxiContext } from '../../common/taxi-context.js';
import type { DfConfig } from '../config.js';
import { dfGroupPenalty } from '../penalty.js';

/**
 * DF_RIDE_WITHOUT_METER — Art. 37 g: the driver must "acionar o taxímetro somente após
 * iniciada a corrida e desligá-lo quando finda". Passengers on board (occupancy sensor) and
 * ≥ 1 km driven with the meter free or off. Needs both readings; otherwise it does not fire.
 * The count is the door-gated one's lower bound (`SampleFacts.occupancy.passengersAtLeast`).
 */
export const dfRideWithoutMeterRule = sustainedRule<{ maxPassengers: number }, DfConfig, TaxiContext>({
  id: 'DF_RIDE_WITHOUT_METER',
  pack: 'df-taxi',
  legalBasis: ['Art. 37 g'],
  description: {
    pt: 'Corrida com passageiros sem o taxímetro acionado.',
    en: 'Ride with passengers on board and the meter not running.',
  },
  penalty: (config) => dfGroupPenalty(config, 'DF_RIDE_WITHOUT_METER'),
  observe(ctx) {
    const s = ctx.sample;
    // The door-gated count's lower bound: a counter flicker with the doors closed puts nobody on board.
    const passengers = ctx.occupancy.passengersAtLeast;
    if (passengers === null || passengers <= 0) return null;
    if (s.meterState !== 'free' && s.meterState !== 'off') return null;
    return { suspected: false, fold: (prev) => ({ maxPassengers: Math.max(prev?.maxPassengers ?? 0, passengers) }) };
  },
  qualifies: (run, config) => run.distanceM >= config.rideWithoutMeter.minMetres,
  measured: (run, config) => ({
    metresWithoutMeter: Math.round(run.distanceM),
    minMetres: config.rideWithoutMeter.minMetres,
    seconds: round(run.durationS),
    passengersMax: run.extra.maxPassengers,
  }),
});
