import type { VehicleRecord } from '../../../registry/records.js';
import { addMonths, type LocalDate } from '../../../time/local-time.js';
import type { SpConfig } from '../config.js';

/**
 * Age in whole years counted by calendar year from the year of manufacture — the only date the
 * registry (and the CRLV) gives. A vehicle made in 2011 is 15 throughout 2026.
 */
export function ageInYear(vehicle: VehicleRecord, year: number): number {
  return year - vehicle.manufactureYear;
}

/** Art. 17: the longest interval between inspections for a vehicle of `ageYears`. */
export function inspectionPeriodMonths(ageYears: number, config: SpConfig): number {
  if (ageYears <= 5) return config.inspection.monthsUpTo5Years;
  if (ageYears <= 10) return config.inspection.monthsUpTo10Years;
  return config.inspection.monthsUpTo15Years;
}

export interface InspectionStatus {
  readonly dueDate: LocalDate | null;
  readonly periodMonths: number | null;
  readonly ageForPeriod: number;
  readonly basis: 'certificate' | 'art-17-period' | 'never-inspected';
}

/** When the vehicle's next inspection was due. */
export function inspectionDue(vehicle: VehicleRecord, operatingDate: LocalDate, config: SpConfig): InspectionStatus {
  const operatingYear = Number(operatingDate.slice(0, 4));
  if (vehicle.inspectionValidUntil !== null) {
    return {
      dueDate: vehicle.inspectionValidUntil,
      periodMonths: null,
      ageForPeriod: ageInYear(vehicle, operatingYear),
      basis: 'certificate',
    };
  }
  if (vehicle.lastInspectionDate === null) {
    return {
      dueDate: null,
      periodMonths: null,
      ageForPeriod: ageInYear(vehicle, operatingYear),
      basis: 'never-inspected',
    };
  }
  const ageYear =
    config.inspection.ageReference === 'last-inspection'
      ? Number(vehicle.lastInspectionDate.slice(0, 4))
      : operatingYear;
  const age = ageInYear(vehicle, ageYear);
  const months = inspectionPeriodMonths(age, config);
  return {
    dueDate: addMonths(vehicle.lastInspectionDate, months),
    periodMonths: months,
    ageForPeriod: age,
    basis: 'art-17-period',
  };
}
