import type { PermitStatus, VehicleRecord } from '../../registry/records.js';
import type { RegistryBreach } from './daily-registry-rule.js';
import { isHired, type TaxiContext } from './taxi-context.js';

/**
 * Shared reading of DF_OPERATING_WHILE_SUSPENDED and BEL_OPERATING_WHILE_SUSPENDED: a taxi
 * operates (meter hired or stopped, or passengers on board while moving — the door-gated count
 * of `SampleFacts.occupancy` above 0 and firm, so a flicker of the counter is not a ride) while the
 * registry shows its permit/authorization (`permitStatus`) or the vehicle itself (`status`) out
 * of service. Each pack says which article each state rests on.
 */

export type SuspensionState = Exclude<PermitStatus, 'active'>;

/** The article each registry state rests on, per pack. */
export type SuspensionBasis = Record<`permit-${SuspensionState}` | `vehicle-${'suspended' | 'withdrawn'}`, string>;

export function operatingForSuspension(ctx: TaxiContext): boolean {
  if (isHired(ctx)) return true;
  const { passengers, provisional } = ctx.occupancy;
  return ctx.moving && passengers !== null && passengers > 0 && !provisional;
}

export function suspensionBreach(v: VehicleRecord | null, basis: SuspensionBasis): RegistryBreach | null {
  if (!v) return null;
  const variant =
    v.permitStatus !== 'active'
      ? (`permit-${v.permitStatus}` as const)
      : v.status === 'suspended' || v.status === 'withdrawn'
        ? (`vehicle-${v.status}` as const)
        : null;
  if (variant === null) return null;
  return {
    variant,
    key: variant,
    suspected: false,
    measured: {
      permitNumber: v.permitNumber,
      permitStatus: v.permitStatus,
      vehicleStatus: v.status,
      basis: basis[variant],
    },
  };
}
