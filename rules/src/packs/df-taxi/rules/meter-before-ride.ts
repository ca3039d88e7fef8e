import { round } from '../../common/round.js';
import { sustainedRule } from '../../common/sustained-rule.js';
import type { TaxiContext } from '../../common/taxi-context.js';
import type { DfConfig } from '../config.js';
import { dfGroupPenalty } from '../penalty.js';

/**
 * DF_METER_BEFORE_RIDE — Art. 37 g, first clause: "acionar o taxímetro somente após iniciada a
 * corrida". The meter `hired` while the taxi drives ≥ `meterBeforeRide.minMetres` (1 km) with
 * the occupancy sensor positively showing nobody on board on every sample: the passenger is
 * charged for the way to the pickup (or the meter was left running after the ride). `stopped`
 * (*hora parada*, waiting for the passenger) is not a running meter here. Needs both readings;
 * otherwise it does not fire. Group B by default (`groups.DF_METER_BEFORE_RIDE`, **interpretation**).
 *
 * "Nobody on board" is `occupancy.passengersAtMost === 0`: the door-gated count and the count as
 * sent both read 0. A count that rose while the door went unseen (a dropout hid the boarding, so
 * the rise is not door-backed and the accepted count stays 0) is unknown, not zero. And the
 * stretch must be seen whole: an interval longer than `meterBeforeRide.maxSampleIntervalS`
 * (not only a gap of `general.maxGapS`) may hide a boarding, so the stretch restarts after it.
 */
export const dfMeterBeforeRideRule = sustainedRule<null, DfConfig, TaxiContext>({
  id: 'DF_METER_BEFORE_RIDE',
  pack: 'df-taxi',
  legalBasis: ['Art. 37 g'],
  description: {
    pt: 'Taxímetro acionado sem passageiro a bordo, antes de iniciada a corrida.',
    en: 'Meter running with nobody on board, before the ride began.',
  },
  penalty: (config) => dfGroupPenalty(config, 'DF_METER_BEFORE_RIDE'),
  observe(ctx) {
    const s = ctx.sample;
    if (s.meterState !== 'hired' || ctx.occupancy.passengersAtMost !== 0) return null;
    return { suspected: false, fold: () => null };
  },
  breaksBefore: (ctx, config) => ctx.dtS > config.meterBeforeRide.maxSampleIntervalS,
  qualifies: (run, config) => run.distanceM >= config.meterBeforeRide.minMetres,
  measured: (run, config) => ({
    metresHiredEmpty: Math.round(run.distanceM),
    minMetres: config.meterBeforeRide.minMetres,
    seconds: round(run.durationS),
    passengers: 0,
  }),
});
