import { round } from '../../common/round.js';
import { sustainedRule } from '../../common/sustained-rule.js';
import type { TaxiContext } from '../../common/taxi-context.js';
import type { DfConfig } from '../config.js';
import { dfGroupPenalty } from '../penalty.js';

/**
 * DF_METER_BEFORE_RIDE — Art. 37 g, first clause: "acionar o taxímetro somente após iniciada a
 * corrida". The meter `hired` while the taxi drives ≥ `meterBeforeRide.minMetres` (1 km) with
 * the occupancy sensor (door-gated, `SampleFacts.occupancy`) showing nobody on board on every
 * sample: the passenger is charged for the
 * way to the pickup (or the meter was left running after the ride). `stopped` (*hora parada*,
 * waiting for the passenger) is not a running meter here. Needs both readings; otherwise it does
 * not fire. Group B by default (`groups.DF_METER_BEFORE_RIDE`, **interpretation**).
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
    if (s.meterState !== 'hired' || ctx.occupancy.passengers !== 0) return null;
    return { suspected: false, fold: () => null };
  },
  qualifies: (run, config) => run.distanceM >= config.meterBeforeRide.minMetres,
  measured: (run, config) => ({
    metresHiredEmpty: Math.round(run.distanceM),
    minMetres: config.meterBeforeRide.minMetres,
    seconds: round(run.durationS),
    passengers: 0,
  }),
});
