import type { Pack } from '@vigia/core';
import type { RegistryView } from '../registry/registry-view.js';
import type { LocalDate } from '../time/local-time.js';
import type { Penalty, PenaltySpec } from '../violations/violation.js';

/** Cents-exact BRL rounding (fines are paid in centavos). */
export const roundBrl = (value: number): number => Math.round(value * 100) / 100;

/**
 * The fine in BRL at the unit value in force on the event's local date (not on the day it is
 * judged or paid): ORTN, UPDF or IPCA-E × units × factor. Unknown when the unit has no value
 * in the registry for that date or the units are not configured (DF Anexo I).
 */
export function pricePenalty(
  spec: PenaltySpec,
  unitsFactor: number,
  registry: RegistryView,
  pack: Pack,
  eventDate: LocalDate,
): Penalty {
  const units = spec.units === null ? null : spec.units * unitsFactor;
  const value = spec.unit === null ? null : registry.unitValue(spec.unit, pack, eventDate);
  return {
    ...spec,
    units,
    amountBrl: units !== null && value ? roundBrl(units * value.valueBrl) : null,
    unitValueBrl: value ? value.valueBrl : null,
    unitValueFrom: value ? value.validFrom : null,
  };
}
