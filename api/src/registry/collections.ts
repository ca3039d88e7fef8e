import { type CollectionSpec, plateFilterSchema } from './collection.js';
import { deviceProfileIssues } from './device-profile.js';
import {
  contractCreateSchema,
  deviceCreateSchema,
  driverCreateSchema,
  holidayCreateSchema,
  operatorCreateSchema,
  standCreateSchema,
  stopCreateSchema,
  unitValueCreateSchema,
  userCreateSchema,
  vehicleCreateSchema,
  zoneCreateSchema,
} from './schemas.js';

const everyone = ['regulator', 'enforcement', 'dispatcher', 'operator'] as const;

export const operatorsSpec: CollectionSpec<typeof operatorCreateSchema> = {
  name: 'operators',
  table: 'operators',
  idPrefix: 'op',
  createSchema: operatorCreateSchema,
  columns: {
    name: 'name',
    pack: 'pack',
    kind: 'kind',
    document: 'document',
    status: 'status',
    registrationValidUntil: 'registration_valid_until',
    credentialValidUntil: 'credential_valid_until',
    declaredVehicleIds: 'declared_vehicle_ids',
  },
  filters: { pack: 'pack', kind: 'kind', status: 'status' },
  // A company by its name or its CNPJ, with or without the punctuation.
  search: ['name', 'document'],
  access: { read: everyone, write: ['regulator'] },
  scope: { column: 'id' },
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
    modelYear: 'model_year',
    permitKind: 'permit_kind',
    inspectionValidUntil: 'inspection_valid_until',
    safetyCertificateValidUntil: 'safety_certificate_valid_until',
    ageExtensionValidUntil: 'age_extension_valid_until',
    tachographLinked: 'tachograph_linked',
    permitStatus: 'permit_status',
    specialTariffService: 'special_tariff_service',
  },
  filters: {
    pack: 'pack',
    serviceType: 'service_type',
    operatorId: 'operator_id',
    status: 'status',
    plate: 'plate',
    permitNumber: 'permit_number',
    permitStatus: 'permit_status',
  },
  filterValues: { plate: plateFilterSchema },
  // A plate or permit number, whole or in part, with or without its punctuation.
  search: ['plate', 'permit_number'],
  access: { read: everyone, write: ['regulator'] },
  scope: { column: 'operator_id' },
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
    pack: 'pack',
    matriculaValidUntil: 'matricula_valid_until',
    badgeValidUntil: 'badge_valid_until',
  },
  filters: { operatorId: 'operator_id', status: 'status' },
  // A driver by name, CNH (licence) or CPF.
  search: ['name', 'licence_number', 'document'],
  access: { read: everyone, write: ['regulator'] },
  scope: { column: 'operator_id' },
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
  // A profile that does not exist for the protocol would make the gateways refuse every message.
  check: (device, changed) => (changed.has('protocol') || changed.has('profile') ? deviceProfileIssues(device) : []),
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

/** Reference data the rules read: every role reads it in full (`scope: 'shared'`), regulators maintain it. */
const referenceAccess = { read: everyone, write: ['regulator'] } as const;

export const stopsSpec: CollectionSpec<typeof stopCreateSchema> = {
  name: 'stops',
  table: 'stops',
  idPrefix: 'stop',
  createSchema: stopCreateSchema,
  columns: { name: 'name', lat: 'lat', lon: 'lon', source: 'source' },
  filters: { source: 'source' },
  search: 'name',
  access: referenceAccess,
  scope: 'shared',
};

export const standsSpec: CollectionSpec<typeof standCreateSchema> = {
  name: 'stands',
  table: 'stands',
  idPrefix: 'stand',
  createSchema: standCreateSchema,
  columns: {
    pack: 'pack',
    name: 'name',
    geometry: 'geometry',
    radiusM: 'radius_m',
    places: 'places',
    kind: 'kind',
    holderVehicleIds: 'holder_vehicle_ids',
    holderOperatorIds: 'holder_operator_ids',
  },
  filters: { pack: 'pack', kind: 'kind' },
  search: 'name',
  access: referenceAccess,
  scope: 'shared',
};

export const zonesSpec: CollectionSpec<typeof zoneCreateSchema> = {
  name: 'zones',
  table: 'zones',
  idPrefix: 'zone',
  createSchema: zoneCreateSchema,
  columns: { pack: 'pack', kind: 'kind', name: 'name', geometry: 'geometry', speedLimitKmh: 'speed_limit_kmh' },
  filters: { pack: 'pack', kind: 'kind' },
  access: referenceAccess,
  scope: 'shared',
};

export const contractsSpec: CollectionSpec<typeof contractCreateSchema> = {
  name: 'contracts',
  table: 'contracts',
  idPrefix: 'ctr',
  createSchema: contractCreateSchema,
  columns: {
    operatorId: 'operator_id',
    kind: 'kind',
    vehicleIds: 'vehicle_ids',
    client: 'client',
    route: 'route',
    boardingPlaces: 'boarding_places',
    alightingPlaces: 'alighting_places',
    schedule: 'schedule',
    validFrom: 'valid_from',
    validUntil: 'valid_until',
    otherCompanyAuthorizations: 'other_company_authorizations',
  },
  filters: { operatorId: 'operator_id', kind: 'kind' },
  access: referenceAccess,
  scope: { column: 'operator_id' },
  // A contract is in force from the start of its validFrom day (São Paulo time), not from its entry.
  inForceFrom: (c) =>
    typeof c.validFrom === 'string' && c.validFrom < new Date().toISOString().slice(0, 10)
      ? `${c.validFrom}T00:00:00-03:00`
      : undefined,
};

export const holidaysSpec: CollectionSpec<typeof holidayCreateSchema> = {
  name: 'holidays',
  table: 'holidays',
  idPrefix: 'hol',
  createSchema: holidayCreateSchema,
  columns: { pack: 'pack', date: 'date', name: 'name', kind: 'kind' },
  filters: { pack: 'pack', kind: 'kind' },
  access: referenceAccess,
  scope: 'shared',
};

export const unitValuesSpec: CollectionSpec<typeof unitValueCreateSchema> = {
  name: 'unit-values',
  table: 'unit_values',
  idPrefix: 'uv',
  createSchema: unitValueCreateSchema,
  columns: { unit: 'unit', valueBrl: 'value_brl', validFrom: 'valid_from' },
  filters: { unit: 'unit' },
  access: referenceAccess,
  scope: 'shared',
};
