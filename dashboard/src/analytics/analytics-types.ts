/**
 * The analytics API's answers, as the API defines them: types only, from the zod schemas in
 * api/src/analytics/analytics-schemas.ts (the one source of their types).
 *
 * Imported rather than copied (unlike api-types.ts, which copies from @vigia/core because core pulls
 * Node-only modules): that file imports nothing but zod, and `export type` is erased by the build,
 * so no API code reaches the bundle, while a change to an answer's shape breaks the dashboard's
 * type-check instead of drifting silently. If that file ever imports Node code, copy the types here.
 */
export type {
  ActivityFigures,
  ActivityMonth,
  AuthorizationShare,
  AuthorizationSharesResponse,
  FleetSizingResponse,
  HeatCell,
  OccupancyFigures,
  OccupancyPeriod,
  OccupancyResponse,
  OperatorAnalyticsResponse,
  StandWait,
  StandWaitFigures,
  VehicleAnalyticsResponse,
  ViolationCount,
  ViolationHeatResponse,
} from '../../../api/src/analytics/analytics-schemas.js';

/** The pages, as they appear in the address: `#analytics/<page>`. */
export const analyticsPages = [
  'occupancy',
  'fleet-sizing',
  'authorization-shares',
  'operators',
  'vehicles',
  'violation-heat',
] as const;
export type AnalyticsPageId = (typeof analyticsPages)[number];
