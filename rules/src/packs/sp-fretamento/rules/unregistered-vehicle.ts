import type { SampleFacts } from '../../../engine/sample-facts.js';
import type { VehicleRecord } from '../../../registry/records.js';
import { type RegistryBreach, registryStateRule } from '../../common/daily-registry-rule.js';
import { fine } from '../../common/penalty-helpers.js';
import type { SpConfig } from '../config.js';
import type { SpContext } from '../context.js';

/**
 * FRET_UNREGISTERED_VEHICLE — a charter bus operating that is not in the registry of an
 * authorized operator. Variants, each with its own article:
 * - `operator-not-authorized`: the operator is missing, not authorized, or its 5-year
 *   registration (Art. 7 §3) has lapsed → Art. 28: apprehension and 25 ORTN;
 * - `vehicle-not-registered`: the vehicle was never registered (or not yet, on that date) →
 *   Art. 26 VII (25 ORTN; default) or Art. 23 I (10 ORTN), configurable; apprehension (Art. 28-A);
 * - `vehicle-withdrawn`: its registration was retired or marked withdrawn → Art. 26 VI
 *   ("mantido em serviço veículo cuja retirada tenha sido exigida", 25 ORTN) and, no longer
 *   registered, apprehension (Art. 28-A);
 * - `vehicle-suspended`: suspended by the regulator → Art. 26 VI (25 ORTN).
 * The pipeline keeps feeding telemetry from withdrawn vehicles: the rule reads the vehicle's
 * history, not just the current version. One continuing violation per breach (keyed by the variant
 * and the registry change behind it), not one per day.
 */

export type UnregisteredVariant =
  | 'operator-not-authorized'
  | 'vehicle-not-registered'
  | 'vehicle-withdrawn'
  | 'vehicle-suspended';

/** When the vehicle's current status began: edits of other fields in between make new versions, not a new breach. */
function statusSince(history: readonly VehicleRecord[], v: VehicleRecord): string {
  let since = v.validFrom;
  const i = history.findIndex((h) => h.validFrom.getTime() === v.validFrom.getTime());
  for (let j = i - 1; j >= 0; j--) {
    const h = history[j];
    if (!h || h.status !== v.status || h.validTo?.getTime() !== since.getTime()) break;
    since = h.validFrom;
  }
  return since.toISOString();
}

export function unregisteredBreach(ctx: SampleFacts): RegistryBreach | null {
  const v = ctx.vehicle;
  const history = ctx.registry.vehicleHistory(ctx.sample.vehicleId);
  if (!v) {
    const earlier = history.filter((h) => h.validFrom.getTime() <= ctx.ms);
    const last: VehicleRecord | undefined = earlier[earlier.length - 1];
    if (!last) {
      return {
        variant: 'vehicle-not-registered',
        suspected: false,
        key: 'vehicle-not-registered',
        measured: { registeredFrom: history[0]?.validFrom.toISOString() ?? null },
      };
    }
    return {
      variant: 'vehicle-withdrawn',
      suspected: false,
      key: `vehicle-withdrawn:${last.validTo?.toISOString() ?? 'retired'}`,
      measured: {
        plate: last.plate,
        registrationEndedAt: last.validTo?.toISOString() ?? null,
        lastOperatorId: last.operatorId,
      },
    };
  }
  if (v.status === 'withdrawn') {
    return {
      variant: 'vehicle-withdrawn',
      suspected: false,
      key: `vehicle-withdrawn:${statusSince(history, v)}`,
      measured: { status: v.status, since: v.validFrom.toISOString() },
    };
  }
  if (v.status === 'suspended') {
    return {
      variant: 'vehicle-suspended',
      suspected: false,
      key: `vehicle-suspended:${statusSince(history, v)}`,
      measured: { status: v.status, since: v.validFrom.toISOString() },
    };
  }
  const operator = v.operatorId === null ? null : ctx.registry.operator(v.operatorId, ctx.ms);
  // Art. 7 §3: the registration is valid for 5 years; a lapsed one no longer authorizes.
  const validUntil = operator?.registrationValidUntil ?? null;
  const lapsed = validUntil !== null && validUntil < ctx.local.date;
  if (operator?.status !== 'authorized' || lapsed) {
    return {
      variant: 'operator-not-authorized',
      suspected: false,
      key: `operator-not-authorized:${v.operatorId ?? 'none'}:${operator?.status ?? 'not-in-registry'}:${lapsed ? validUntil : 'status'}`,
      measured: {
        operatorId: v.operatorId,
        operatorStatus: operator?.status ?? 'not-in-registry',
        registrationValidUntil: operator?.registrationValidUntil ?? null,
      },
    };
  }
  return null;
}

export const unregisteredVehicleRule = registryStateRule<SpConfig, SpContext>({
  id: 'FRET_UNREGISTERED_VEHICLE',
  pack: 'sp-fretamento',
  legalBasis: ['Art. 23 I', 'Art. 26 VI', 'Art. 26 VII', 'Art. 28', 'Art. 28-A'],
  description: {
    pt: 'Veículo operando sem registro de empresa autorizada, ou com o registro retirado.',
    en: 'Vehicle operating without registration by an authorized operator, or after its registration was withdrawn.',
  },
  penalty: (config, variant) => {
    switch (variant as UnregisteredVariant | null) {
      case 'operator-not-authorized':
        return fine('ORTN', 25, 'Art. 28', { apprehension: true });
      case 'vehicle-withdrawn':
        return fine('ORTN', 25, 'Art. 26 VI', { apprehension: true });
      case 'vehicle-suspended':
        return fine('ORTN', 25, 'Art. 26 VI');
      default:
        return config.unregisteredVehicle.vehicleNotRegisteredBasis === 'art-26-vii'
          ? fine('ORTN', 25, 'Art. 26 VII', { apprehension: true })
          : fine('ORTN', 10, 'Art. 23 I', { apprehension: true });
    }
  },
  check: (ctx) => unregisteredBreach(ctx),
});
