import type { Pack } from '@vigia/core';
import type { OperatorFacts, VehicleFacts } from './booking-store.js';

/**
 * Who may take a booking, as pure functions of the facts the store reads: the operator taking it
 * (lawful by construction) and each vehicle it could go to. The same checks serve the automatic
 * offers (an ineligible taxi is skipped) and the dispatcher's manual assignment (409 with the
 * code of the first reason), so the two can never disagree.
 */

/** The packs whose operators take radio-taxi bookings. */
export const TAXI_PACKS: readonly Pack[] = ['df-taxi', 'belem-taxi'];

export type OperatorProblem =
  | { code: 'OPERATOR_NOT_TAXI'; status: 400; message: string }
  | { code: 'OPERATOR_NOT_CREDENTIALED'; status: 409; message: string };

/**
 * Whether `operator` may take bookings on `localDate` (its pack's calendar date). Belém: only a
 * credentialed radio operator (Art. 42–43: kind `radio-operator`, authorized, credential valid
 * that day), exactly what BEL_UNAUTHORIZED_RADIO checks per dispatch, so that dispatching through
 * it can never itself be that violation. DF: any current, active operator of the pack (a
 * cooperative, a taxi company, a radio operator).
 */
export function operatorProblem(operator: OperatorFacts, localDate: string): OperatorProblem | null {
  if (!TAXI_PACKS.includes(operator.pack)) {
    return {
      code: 'OPERATOR_NOT_TAXI',
      status: 400,
      message: `Operator '${operator.id}' is a ${operator.pack} operator; bookings are for taxi operators (${TAXI_PACKS.join(', ')})`,
    };
  }
  const current = !operator.retired && operator.status === 'active';
  if (operator.pack === 'belem-taxi') {
    const credentialed =
      current &&
      operator.kind === 'radio-operator' &&
      (operator.credentialValidUntil === null || operator.credentialValidUntil >= localDate);
    if (!credentialed) {
      return {
        code: 'OPERATOR_NOT_CREDENTIALED',
        status: 409,
        message: `Operator '${operator.id}' is not a credentialed radio operator on ${localDate} (Belém Art. 42–43): a dispatch through it would be BEL_UNAUTHORIZED_RADIO`,
      };
    }
  } else if (!current) {
    return {
      code: 'OPERATOR_NOT_CREDENTIALED',
      status: 409,
      message: `Operator '${operator.id}' is not active`,
    };
  }
  return null;
}

/** Why a vehicle may not take a booking; the first that applies, in this order. */
export type VehicleProblemCode =
  | 'VEHICLE_NOT_FOUND'
  | 'VEHICLE_NOT_OF_OPERATOR'
  | 'VEHICLE_RETIRED'
  | 'VEHICLE_SUSPENDED'
  | 'PERMIT_EXPIRED'
  | 'VEHICLE_OFFLINE'
  | 'VEHICLE_NOT_FREE'
  | 'VEHICLE_BUSY'
  | 'VEHICLE_REFUSED_BOOKING';

export interface VehicleContext {
  /** The vehicles the booking's operator may send (declared, or registered to it in DF). */
  fleet: ReadonlySet<string>;
  /** The pack's calendar date now. */
  localDate: string;
  nowMs: number;
  offlineAfterS: number;
}

const messages: Record<VehicleProblemCode, string> = {
  VEHICLE_NOT_FOUND: 'No such vehicle',
  VEHICLE_NOT_OF_OPERATOR:
    "The vehicle is not among the operator's vehicles (Belém: declared by the radio operator, Art. 44 I; DF: registered to or declared by the operator)",
  VEHICLE_RETIRED: 'The vehicle is retired from the registry',
  VEHICLE_SUSPENDED: 'The vehicle or its permit is suspended, withdrawn or cancelled',
  PERMIT_EXPIRED: "The vehicle's permit (Belém: its DIV) has expired",
  VEHICLE_OFFLINE: 'The vehicle has not reported its position recently',
  VEHICLE_NOT_FREE: "The vehicle's meter is not free",
  VEHICLE_BUSY: 'The vehicle holds another open offer or a booking in progress',
  VEHICLE_REFUSED_BOOKING: 'The vehicle already declined this booking or let its offer expire',
};

export function vehicleProblemMessage(code: VehicleProblemCode): string {
  return messages[code];
}

/** Why `v` may not take the booking now, or null: it may. */
export function vehicleProblem(v: VehicleFacts | undefined, ctx: VehicleContext): VehicleProblemCode | null {
  if (!v) return 'VEHICLE_NOT_FOUND';
  if (!ctx.fleet.has(v.id)) return 'VEHICLE_NOT_OF_OPERATOR';
  if (v.retired) return 'VEHICLE_RETIRED';
  if (v.status !== 'active' || v.permitStatus !== 'active') return 'VEHICLE_SUSPENDED';
  const expired = (d: string | null) => d !== null && d < ctx.localDate;
  if (expired(v.permitValidUntil) || (v.pack === 'belem-taxi' && expired(v.divValidUntil))) return 'PERMIT_EXPIRED';
  if (v.liveTs === null || ctx.nowMs - new Date(v.liveTs).getTime() > ctx.offlineAfterS * 1000) {
    return 'VEHICLE_OFFLINE';
  }
  // No meter data is taken as free (a phone-only cooperative has no taximeter link), as the live index does.
  if (v.meterState !== null && v.meterState !== 'free') return 'VEHICLE_NOT_FREE';
  if (v.hasOpenOffer || v.hasActiveBooking) return 'VEHICLE_BUSY';
  if (v.refusedThisBooking) return 'VEHICLE_REFUSED_BOOKING';
  return null;
}
