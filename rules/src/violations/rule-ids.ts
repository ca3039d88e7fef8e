import type { Pack } from '@vigia/core';

/** Every rule of shared/RULES.md (catalogue v2: 40 rule ids), by pack. */
export const ruleIdsByPack = {
  'sp-fretamento': [
    'FRET_BOARDING_AT_REGULAR_STOP',
    'FRET_OVER_CAPACITY',
    'FRET_INSPECTION_EXPIRED',
    'FRET_UNREGISTERED_VEHICLE',
    'FRET_VEHICLE_TOO_OLD',
    'FRET_TACHOGRAPH_MISSING',
    'FRET_TACHOGRAPH_MISMATCH',
    'FRET_UNSAFE_DRIVING',
    'FRET_ROUTE_DEVIATION',
    'FRET_REGULAR_SERVICE_PATTERN',
    'FRET_NO_CONTRACT_IN_FORCE',
    'FRET_DOOR_OPEN_MOVING',
    'FRET_DRIVER_NOT_AUTHORIZED',
    'FRET_VEHICLE_OF_ANOTHER_COMPANY',
  ],
  'df-taxi': [
    'DF_BANDEIRA2_MISUSE',
    'DF_OVER_CAPACITY',
    'DF_STAND_QUEUE_JUMP',
    'DF_RIDE_WITHOUT_METER',
    'DF_DETOUR',
    'DF_VEHICLE_TOO_OLD',
    'DF_PERMIT_EXPIRED',
    'DF_UNREGISTERED_DRIVER',
    'DF_OVERCHARGE',
    'DF_OPERATING_WHILE_SUSPENDED',
    'DF_METER_BEFORE_RIDE',
  ],
  'belem-taxi': [
    'BEL_BANDEIRA2_MISUSE',
    'BEL_OVER_CAPACITY',
    'BEL_STAND_UNAUTHORIZED',
    'BEL_STAND_OVERFLOW',
    'BEL_STAND_QUEUE_JUMP',
    'BEL_DIV_EXPIRED',
    'BEL_VEHICLE_TOO_OLD',
    'BEL_DETOUR',
    'BEL_OVERCHARGE',
    'BEL_UNAUTHORIZED_RADIO',
    'BEL_UNSAFE_DRIVING',
    'BEL_OPERATING_WHILE_SUSPENDED',
    'BEL_UNREGISTERED_DRIVER',
    'BEL_STAND_ABANDONED',
    'BEL_SPECIAL_TARIFF_VEHICLE_TOO_OLD',
  ],
} as const satisfies Record<Pack, readonly string[]>;

export type SpRuleId = (typeof ruleIdsByPack)['sp-fretamento'][number];
export type DfRuleId = (typeof ruleIdsByPack)['df-taxi'][number];
export type BelemRuleId = (typeof ruleIdsByPack)['belem-taxi'][number];
export type RuleId = SpRuleId | DfRuleId | BelemRuleId;

export const ruleIds: readonly RuleId[] = [
  ...ruleIdsByPack['sp-fretamento'],
  ...ruleIdsByPack['df-taxi'],
  ...ruleIdsByPack['belem-taxi'],
];
