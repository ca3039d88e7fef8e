import type { FineUnit } from '../../registry/records.js';
import type { PenaltySpec } from '../../violations/violation.js';

export function fine(
  unit: FineUnit,
  units: number | null,
  item: string,
  extra: Partial<Omit<PenaltySpec, 'unit' | 'units' | 'item'>> = {},
): PenaltySpec {
  return {
    unit,
    units,
    item,
    group: extra.group ?? null,
    apprehension: extra.apprehension ?? false,
    opensCancellation: extra.opensCancellation ?? false,
    registryNonCompliance: extra.registryNonCompliance ?? false,
  };
}

/** A finding that calls for administrative action on the registration, without a fine of its own. */
export function registryNonCompliance(item: string, extra: Partial<PenaltySpec> = {}): PenaltySpec {
  return {
    unit: null,
    units: null,
    group: null,
    item,
    apprehension: false,
    opensCancellation: false,
    ...extra,
    registryNonCompliance: true,
  };
}
