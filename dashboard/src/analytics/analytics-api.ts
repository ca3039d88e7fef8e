import type { ApiClient } from '../api-client.js';
import type { OperatorItem, VehicleItem } from '../api-types.js';
import { currentLocale } from '../i18n.js';

/** Query parameters of an analytics route; undefined ones are left out (the API's defaults apply). */
export type AnalyticsQuery = Record<string, string | undefined>;

/** CSV can take a while over a year of days or hours: as long as the violations export. */
const csvTimeoutMs = 120_000;

/**
 * The `/v1/analytics/...` routes through the signed-in client (its token, timeout and error
 * contract). Every route answers JSON, or the same figures as CSV with `format=csv`; the CSV's
 * headers follow the interface's language (`lang`).
 */
export class AnalyticsApi {
  constructor(private readonly client: ApiClient) {}

  get<T>(route: string, query: AnalyticsQuery = {}): Promise<T> {
    return this.client.getJson<T>(analyticsPath(route, query));
  }

  /** The registry, for the operator and vehicle pickers (what the token may see). */
  listOperators(): Promise<OperatorItem[]> {
    return this.client.listOperators();
  }

  listVehicles(): Promise<VehicleItem[]> {
    return this.client.listVehicles();
  }

  /** Fetched, not linked: the route needs the Authorization header. */
  async csv(route: string, query: AnalyticsQuery = {}): Promise<Blob> {
    const path = analyticsPath(route, { ...query, format: 'csv', lang: currentLocale() });
    const response = await this.client.fetch(path, 'GET', 'text/csv', undefined, csvTimeoutMs);
    return response.blob();
  }
}

/** `/v1/analytics/<route>?<query>`; `route` may carry an id (`operators/coop-1`), encoded by the caller. */
export function analyticsPath(route: string, query: AnalyticsQuery): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined && value !== '') params.set(key, value);
  const search = params.toString();
  return `/v1/analytics/${route}${search ? `?${search}` : ''}`;
}
