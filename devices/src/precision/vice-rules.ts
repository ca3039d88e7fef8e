import type { Pack } from '@vigia/core';
import type { RuleId } from '@vigia/rules';
import type { Vices } from '../fleet/vices.js';

/**
 * Which rule each vice (fleet/vices.ts) must raise, per city — what recall is measured on — and
 * which other rules it may lawfully bring along (a Bandeira II at a forbidden hour also prices the
 * fare above the table). A habit that breaks no rule by itself (working the street, around the
 * clock, short layovers) has no row.
 */
export interface ViceRule {
  vice: keyof Vices;
  /** What the vice is, in a few words. */
  label: string;
  pack: Pack;
  ruleId: RuleId;
  alsoExplains?: readonly RuleId[];
}

export const VICE_RULES: readonly ViceRule[] = [
  { vice: 'overload', label: 'party of five in a 4-seat taxi', pack: 'df-taxi', ruleId: 'DF_OVER_CAPACITY' },
  { vice: 'rideWithoutMeter', label: 'rides with the meter free', pack: 'df-taxi', ruleId: 'DF_RIDE_WITHOUT_METER' },
  {
    vice: 'bandeira2Always',
    label: 'Bandeira II at any hour',
    pack: 'df-taxi',
    ruleId: 'DF_BANDEIRA2_MISUSE',
    alsoExplains: ['DF_OVERCHARGE'],
  },
  {
    vice: 'unregisteredDriverIds',
    label: 'permit rented to unregistered drivers',
    pack: 'df-taxi',
    ruleId: 'DF_UNREGISTERED_DRIVER',
  },
  { vice: 'permitExpired', label: 'permit not revalidated', pack: 'df-taxi', ruleId: 'DF_PERMIT_EXPIRED' },
  { vice: 'speeding', label: 'lead foot (1.35 ×)', pack: 'belem-taxi', ruleId: 'BEL_UNSAFE_DRIVING' },
  { vice: 'overload', label: 'party of five in a 4-seat taxi', pack: 'belem-taxi', ruleId: 'BEL_OVER_CAPACITY' },
  {
    vice: 'bandeira2Always',
    label: 'Bandeira II at any hour',
    pack: 'belem-taxi',
    ruleId: 'BEL_BANDEIRA2_MISUSE',
    alsoExplains: ['BEL_OVERCHARGE'],
  },
  { vice: 'divExpired', label: 'D.I.V. expired', pack: 'belem-taxi', ruleId: 'BEL_DIV_EXPIRED' },
  { vice: 'speeding', label: 'speeding on highways (1.25 ×)', pack: 'sp-fretamento', ruleId: 'FRET_UNSAFE_DRIVING' },
  {
    vice: 'tachographScale',
    label: 'tachograph reads 22 % low',
    pack: 'sp-fretamento',
    ruleId: 'FRET_TACHOGRAPH_MISMATCH',
  },
  { vice: 'overload', label: 'standing passengers', pack: 'sp-fretamento', ruleId: 'FRET_OVER_CAPACITY' },
  {
    vice: 'boardsAtRegularStops',
    label: 'boards at regular-service stops',
    pack: 'sp-fretamento',
    ruleId: 'FRET_BOARDING_AT_REGULAR_STOP',
    // Three stops in one trip are a regular service; a boarding off the declared places is also off-itinerary.
    alsoExplains: ['FRET_REGULAR_SERVICE_PATTERN', 'FRET_ROUTE_DEVIATION'],
  },
  {
    vice: 'contractLapsed',
    label: 'no contract in force',
    pack: 'sp-fretamento',
    ruleId: 'FRET_NO_CONTRACT_IN_FORCE',
  },
  {
    vice: 'inspectionOverdue',
    label: 'vistoria two years old',
    pack: 'sp-fretamento',
    ruleId: 'FRET_INSPECTION_EXPIRED',
  },
];

/** The vice rows a vehicle of `pack` with `vices` carries. */
export function viceRulesOf(pack: Pack, vices: Vices | undefined): ViceRule[] {
  if (!vices) return [];
  return VICE_RULES.filter((r) => r.pack === pack && vices[r.vice] !== undefined && vices[r.vice] !== false);
}

/** The rules a vehicle's vices explain: any other violation it raises is a false positive too. */
export function explainedRules(pack: Pack, vices: Vices | undefined): Set<RuleId> {
  const out = new Set<RuleId>();
  for (const r of viceRulesOf(pack, vices)) {
    out.add(r.ruleId);
    for (const also of r.alsoExplains ?? []) out.add(also);
  }
  return out;
}
