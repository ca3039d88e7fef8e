import type { ContractRecord } from '../../../registry/records.js';
import { addDays } from '../../../time/local-time.js';
import { fine } from '../../common/penalty-helpers.js';
import { round } from '../../common/round.js';
import { sustainedRule } from '../../common/sustained-rule.js';
import type { SpConfig } from '../config.js';
import type { SpContext } from '../context.js';
import { scheduleActive } from '../schedule.js';

/**
 * FRET_NO_CONTRACT_IN_FORCE — Art. 10 caput and Art. 11 caput: *fretamento contínuo* and
 * *eventual* are services "mediante contrato escrito"; Art. 11 §4: the contract is carried on
 * every trip; Art. 20: the trips are the contracted ones, filed beforehand. Breaking the
 * Regulation: Art. 23 V (10 ORTN).
 *
 * A charter bus (service type contínuo or eventual) drives with passengers on board (the
 * occupancy count above 0 on every sample of the stretch) for ≥ `noContract.minMovingSeconds`
 * (the door-gated count of `SampleFacts.occupancy`: a counter flicker with the doors shut is
 * not a passenger) while no contract in force lists it inside its schedule window (±
 * `scheduleMarginMinutes`) and before the end of its last day (`validUntil`).
 * *Serviço particular com veículo próprio* (Art. 12) has no contract and is exempt. A contract of
 * another operator that lists the vehicle covers it: whether that is lawful is
 * FRET_VEHICLE_OF_ANOTHER_COMPANY's business (Art. 24 II), not a second fine here. Without a
 * passenger count the rule does not fire (a boarding counter alone cannot say when the bus is
 * empty again). A vehicle the registry does not know is FRET_UNREGISTERED_VEHICLE.
 */

interface Extra {
  readonly maxPassengers: number;
}

/**
 * Is the contract binding at the sample — not past its last day (`validUntil`, inclusive; a trip
 * that began within the margin before midnight of that day still counts) — and inside its
 * schedule window ± the margin?
 */
export function contractRunning(contract: ContractRecord, ctx: SpContext, marginMinutes: number): boolean {
  if (contract.validUntil !== null) {
    const day = ctx.local.minuteOfDay < marginMinutes ? addDays(ctx.local.date, -1) : ctx.local.date;
    if (day > contract.validUntil) return false;
  }
  return scheduleActive(contract.schedule, ctx.local, marginMinutes);
}

function coveringContract(ctx: SpContext, config: SpConfig): ContractRecord | null {
  for (const contract of ctx.registry.contractsForVehicle(ctx.sample.vehicleId, ctx.ms)) {
    if (contractRunning(contract, ctx, config.noContract.scheduleMarginMinutes)) return contract;
  }
  return null;
}

export const noContractInForceRule = sustainedRule<Extra, SpConfig, SpContext>({
  id: 'FRET_NO_CONTRACT_IN_FORCE',
  pack: 'sp-fretamento',
  legalBasis: ['Art. 10 caput', 'Art. 11 caput', 'Art. 11 §4', 'Art. 20', 'Art. 23 V'],
  description: {
    pt: 'Veículo de fretamento transportando passageiros sem contrato vigente que o cubra naquele horário.',
    en: 'Charter bus carrying passengers with no contract in force covering it at that time.',
  },
  penalty: () => fine('ORTN', 10, 'Art. 23 V'),
  observe(ctx, config) {
    const v = ctx.vehicle;
    if (!v || (v.serviceType !== 'fretamento-continuo' && v.serviceType !== 'fretamento-eventual')) return null;
    const passengers = ctx.occupancy.passengers;
    if (passengers === null || passengers <= 0) return null;
    if (coveringContract(ctx, config) !== null) return null;
    return {
      suspected: false,
      key: v.serviceType,
      // The same extra while the maximum holds: it lives as long as the run.
      fold: (prev) => (prev !== null && prev.maxPassengers >= passengers ? prev : { maxPassengers: passengers }),
    };
  },
  qualifies: (run, config) => run.movingS >= config.noContract.minMovingSeconds,
  measured: (run, config) => ({
    passengersMax: run.extra.maxPassengers,
    movingSecondsWithPassengers: round(run.movingS),
    minMovingSeconds: config.noContract.minMovingSeconds,
    durationSeconds: round(run.durationS),
    distanceM: Math.round(run.distanceM),
    scheduleMarginMinutes: config.noContract.scheduleMarginMinutes,
    contractsCovering: 0,
  }),
});
