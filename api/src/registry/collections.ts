import type { CollectionSpec } from './collection.js';
import {
  deviceCreateSchema,
  driverCreateSchema,
  operatorCreateSchema,
  userCreateSchema,
  vehicleCreateSchema,
} from './schemas.js';

const everyone = ['regulator', 'enforcement', 'dispatcher', 'operator'] as const;

export const operatorsSpec: CollectionSpec<typeof operatorCreateSchema> = {
  name: 'operators',
  table: 'operators',
  idPrefix: 'op',
  createSchema: operatorCreateSchema,
  columns: { name: 'name', pack: 'pack', kind: 'kind', document: 'document', status: 'status' },
  filters: { pack: 'pack', kind: 'kind', status: 'status' },
  access: { read: everyone, write: ['regulator'] },
  scopeColumn: 'id',
};

export const vehiclesSpec: CollectionSpec<typeof vehicleCreateSchema> = {
  name: 'vehicles',
  table: 'vehicles',
  idPrefix: 'veh',
  createSchema: vehicleCreateSchema,
  columns: {
    plate: 'plate',
    pack: 'pack',
    serviceType: 'service_type',
    capacity: 'capacity',
    manufactureYear: 'manufacture_year',
    make: 'make',
    colour: 'colour',
    operatorId: 'operator_id',
    permitNumber: 'permit_number',
    permitValidUntil: 'permit_valid_until',
    lastInspectionDate: 'last_inspection_date',
    divValidUntil: 'div_valid_until',
    driverIds: 'driver_ids',
    status: 'status',
  },
  filters: { pack: 'pack', serviceType: 'service_type', operatorId: 'operator_id', status: 'status', plate: 'plate' },
  access: { read: everyone, write: ['regulator'] },
  scopeColumn: 'operator_id',
};

export const driversSpec: CollectionSpec<typeof driverCreateSchema> = {
  name: 'drivers',
  table: 'drivers',
  idPrefix: 'drv',
  createSchema: driverCreateSchema,
  columns: {
    name: 'name',
    document: 'document',
    licenceNumber: 'licence_number',
    operatorId: 'operator_id',
    status: 'status',
  },
  filters: { operatorId: 'operator_id', status: 'status' },
  access: { read: everyone, write: ['regulator'] },
  scopeColumn: 'operator_id',
};

/** Devices carry identifiers that authenticate nothing on their own, but they are equipment data: regulators only. */
export const devicesSpec: CollectionSpec<typeof deviceCreateSchema> = {
  name: 'devices',
  table: 'devices',
  idPrefix: 'dev',
  createSchema: deviceCreateSchema,
  columns: { vehicleId: 'vehicle_id', protocol: 'protocol', identifier: 'identifier', profile: 'profile' },
  filters: { vehicleId: 'vehicle_id', protocol: 'protocol', identifier: 'identifier' },
  access: { read: ['regulator'], write: ['regulator'] },
  token: 'dev',
};

/** Users and their API tokens are managed with the admin token only. */
export const usersSpec: CollectionSpec<typeof userCreateSchema> = {
  name: 'users',
  table: 'users',
  idPrefix: 'usr',
  createSchema: userCreateSchema,
  columns: { name: 'name', role: 'role', operatorIds: 'operator_ids' },
  filters: { role: 'role' },
  access: { read: [], write: [] },
  token: 'usr',
};
