import type { ContractRecord } from '../../../registry/records.js';
import { fine } from '../../common/penalty-helpers.js';
import { round } from '../../common/round.js';
import { sustainedRule } from '../../common/sustained-rule.js';
import type { SpConfig } from '../config.js';
import type { SpContext } from '../context.js';
import { contractRunning } from './no-contract-in-force.js';

/**
 * FRET_VEHICLE_OF_ANOTHER_COMPANY — Art. 24 II: the company "utilizar veículo de outra empresa
 * sem autorização da Secretaria, salvo em caso de socorro" (15 ORTN). A contract lists a vehicle
 * registered to another operator, the registry holds no authorization for it in force that day
 * (`otherCompanyAuthorizations`), and the vehicle runs the contract's trip: it drives inside the
 * contract's schedule window (± `noContract.scheduleMarginMinutes`), with passengers on board
 * or no passenger count (then suspected), for ≥ `vehicleOfAnotherCompany.minMovingSeconds`. A rescue (*socorro*)
 * is lawful without an authorization and telemetry cannot see it, so the confidence is a setting
 * (`vehicleOfAnotherCompany.confidence`, default suspected).
 */
interface Extra {
  readonly contract: ContractRecord;
  readonly vehicleOperatorId: string | null;
  readonly maxPassengers: number | null;
}

function unauthorizedContract(ctx: SpContext, config: SpConfig): ContractRecord | null {
  const v = ctx.vehicle;
  if (!v) return null;
  for (const contract of ctx.registry.contractsForVehicle(v.id, ctx.ms)) {
    if (contract.operatorId === v.operatorId) continue;
    if (!contractRunning(contract, ctx, config.noContract.scheduleMarginMinutes)) continue;
    const authorized = contract.otherCompanyAuthorizations.some(
      (a) => a.vehicleId === v.id && (a.validUntil === null || a.validUntil >= ctx.local.date),
    );
    if (!authorized) return contract;
  }
  return null;
}

export const vehicleOfAnotherCompanyRule = sustainedRule<Extra, SpConfig, SpContext>({
  id: 'FRET_VEHICLE_OF_ANOTHER_COMPANY',
  pack: 'sp-fretamento',
  legalBasis: ['Art. 24 II'],
  description: {
    pt: 'Viagem de contrato realizada com veículo de outra empresa sem autorização da Secretaria.',
    en: "A contract's trip run with another company's vehicle without the regulator's authorization.",
  },
  penalty: () => fine('ORTN', 15, 'Art. 24 II'),
  observe(ctx, config) {
    const passengers = ctx.occupancy.passengers;
    if (passengers !== null && passengers <= 0) return null;
    const contract = unauthorizedContract(ctx, config);
    if (!contract) return null;
    const vehicleOperatorId = ctx.vehicle?.operatorId ?? null;
    return {
      suspected: config.vehicleOfAnotherCompany.confidence === 'suspected' || passengers === null,
      key: contract.id,
      place: { id: contract.id, kind: 'route', name: contract.client ?? contract.id },
      fold: (prev) => ({
        contract,
        vehicleOperatorId,
        maxPassengers:
          passengers === null ? (prev?.maxPassengers ?? null) : Math.max(prev?.maxPassengers ?? 0, passengers),
      }),
    };
  },
  qualifies: (run, config) => run.movingS >= config.vehicleOfAnotherCompany.minMovingSeconds,
  measured: (run, config) => ({
    contractId: run.extra.contract.id,
    contractOperatorId: run.extra.contract.operatorId,
    vehicleOperatorId: run.extra.vehicleOperatorId,
    authorizationOnRecord: false,
    passengersMax: run.extra.maxPassengers,
    movingSeconds: round(run.movingS),
    minMovingSeconds: config.vehicleOfAnotherCompany.minMovingSeconds,
  }),
});
