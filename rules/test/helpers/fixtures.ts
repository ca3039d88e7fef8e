import type { RegistryRecordsInput } from '../../src/registry/records.js';
import { offset } from './trace.js';

type VehicleInput = NonNullable<RegistryRecordsInput['vehicles']>[number];
type OperatorInput = NonNullable<RegistryRecordsInput['operators']>[number];

/** A closed square polygon of half-side `halfM` metres around a point. */
export function square(
  lat: number,
  lon: number,
  halfM: number,
): { type: 'Polygon'; coordinates: [number, number][][] } {
  const n = offset(lat, lon, halfM, 0).lat;
  const s = offset(lat, lon, halfM, 180).lat;
  const e = offset(lat, lon, halfM, 90).lon;
  const w = offset(lat, lon, halfM, 270).lon;
  return {
    type: 'Polygon',
    coordinates: [
      [
        [w, s],
        [e, s],
        [e, n],
        [w, n],
        [w, s],
      ],
    ],
  };
}

export function taxi(id: string, pack: 'df-taxi' | 'belem-taxi', overrides: Partial<VehicleInput> = {}): VehicleInput {
  return {
    id,
    plate: `TAX${id.replace(/\D/g, '').padStart(4, '0')}`,
    pack,
    serviceType: 'taxi',
    capacity: 4,
    manufactureYear: 2022,
    operatorId: `op-${pack}`,
    permitNumber: `P-${id}`,
    permitValidUntil: '2099-12-31',
    divValidUntil: '2099-12-31',
    driverIds: ['D-1'],
    status: 'active',
    ...overrides,
  };
}

export function bus(id: string, overrides: Partial<VehicleInput> = {}): VehicleInput {
  return {
    id,
    plate: `BUS${id.replace(/\D/g, '').padStart(4, '0')}`,
    pack: 'sp-fretamento',
    serviceType: 'fretamento-continuo',
    capacity: 44,
    manufactureYear: 2020,
    operatorId: 'op-sp',
    permitNumber: `R-${id}`,
    lastInspectionDate: '2026-01-10',
    status: 'active',
    tachographLinked: true,
    ...overrides,
  };
}

export function operator(
  id: string,
  pack: OperatorInput['pack'],
  overrides: Partial<OperatorInput> = {},
): OperatorInput {
  return {
    id,
    name: `Operator ${id}`,
    pack,
    kind: pack === 'sp-fretamento' ? 'charter-company' : 'cooperative',
    status: 'authorized',
    ...overrides,
  };
}

export const baseOperators: OperatorInput[] = [
  operator('op-sp', 'sp-fretamento', { registrationValidUntil: '2030-01-01' }),
  operator('op-df-taxi', 'df-taxi'),
  operator('op-belem-taxi', 'belem-taxi'),
];
