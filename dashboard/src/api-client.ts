import type {
  ContractItem,
  DashboardConfig,
  OperatorItem,
  Page,
  ReviewDecision,
  StandItem,
  StopItem,
  VehicleItem,
  ViolationDetail,
  ViolationFilters,
  ViolationItem,
  ZoneItem,
} from './api-types.js';
import type { ServerClock } from './server-clock.js';

/** The token was refused: the user has to supply another one. */
export class UnauthorizedError extends Error {
  constructor() {
    super('The API token was refused');
    this.name = 'UnauthorizedError';
  }
}

/** Any other failed request, carrying the API's error code when its body follows the error contract. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string | null,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** What the dashboard reads of an alert subscription (GET /v1/alert-subscriptions). */
export interface AlertSubscriptionItem {
  id: string;
  name: string;
  url: string | null;
  email: string | null;
  /** Its alerts have failed, with nothing delivered since, for the whole retry window (ALERT_MAX_AGE_MS). */
  failing: boolean;
  failingSince: string | null;
}

const requestTimeoutMs = 15_000;
/** The export streams every matching row (up to 100 000): far longer than any page. */
const exportTimeoutMs = 120_000;
const pageSize = 1000;

export class ApiClient {
  constructor(
    private readonly token: string,
    private readonly clock: ServerClock,
  ) {}

  listVehicles(): Promise<VehicleItem[]> {
    return this.listAll<VehicleItem>('/v1/vehicles');
  }

  listOperators(): Promise<OperatorItem[]> {
    return this.listAll<OperatorItem>('/v1/operators');
  }

  /** Cheapest authenticated request: throws UnauthorizedError when the token is no longer accepted. */
  async verifyToken(): Promise<void> {
    await this.getJson<Page<VehicleItem>>('/v1/vehicles?limit=1');
  }

  /** The newest `limit` violations matching the filters (one page, newest first). */
  async listViolations(filters: ViolationFilters, limit: number): Promise<ViolationItem[]> {
    const query = violationQuery(filters);
    query.set('limit', String(limit));
    const page = await this.getJson<Page<ViolationItem>>(`/v1/violations?${query}`);
    return page.items;
  }

  /**
   * Every violation matching the filters, up to `max` (newest first). `truncated` says whether
   * more were left on the server, so a counter can say "at least".
   */
  async listAllViolations(
    filters: ViolationFilters,
    max: number,
  ): Promise<{ items: ViolationItem[]; truncated: boolean }> {
    const items: ViolationItem[] = [];
    let cursor: string | null = null;
    do {
      const query = violationQuery(filters);
      query.set('limit', String(Math.min(pageSize, max - items.length)));
      if (cursor !== null) query.set('cursor', cursor);
      const page: Page<ViolationItem> = await this.getJson<Page<ViolationItem>>(`/v1/violations?${query}`);
      items.push(...page.items);
      cursor = page.next;
    } while (cursor !== null && items.length < max);
    return { items, truncated: cursor !== null };
  }

  getViolation(id: string): Promise<ViolationDetail> {
    return this.getJson<ViolationDetail>(`/v1/violations/${encodeURIComponent(id)}`);
  }

  /** Answers with the violation in its new status; a transition the workflow forbids is an ApiError 409. */
  reviewViolation(id: string, decision: ReviewDecision, reason: string): Promise<ViolationItem> {
    return this.sendJson<ViolationItem>('POST', `/v1/violations/${encodeURIComponent(id)}/review`, {
      decision,
      reason,
    });
  }

  /** The CSV export needs the Authorization header, so it cannot be a plain link: it is fetched as a Blob. */
  async exportViolationsCsv(filters: ViolationFilters): Promise<Blob> {
    const response = await this.fetch(
      `/v1/violations/export.csv?${violationQuery(filters)}`,
      'GET',
      'text/csv',
      undefined,
      exportTimeoutMs,
    );
    return response.blob();
  }

  /** The caller's alert subscriptions (admin, regulator, enforcement); other roles get a 403 ApiError. */
  async listAlertSubscriptions(): Promise<AlertSubscriptionItem[]> {
    // One page holds them all: the API answers every subscription the caller sees, with `next: null`.
    const page = await this.getJson<Page<AlertSubscriptionItem>>('/v1/alert-subscriptions');
    return page.items;
  }

  getStop(id: string): Promise<StopItem> {
    return this.getJson<StopItem>(`/v1/stops/${encodeURIComponent(id)}`);
  }

  getStand(id: string): Promise<StandItem> {
    return this.getJson<StandItem>(`/v1/stands/${encodeURIComponent(id)}`);
  }

  getZone(id: string): Promise<ZoneItem> {
    return this.getJson<ZoneItem>(`/v1/zones/${encodeURIComponent(id)}`);
  }

  getContract(id: string): Promise<ContractItem> {
    return this.getJson<ContractItem>(`/v1/contracts/${encodeURIComponent(id)}`);
  }

  // listAll, getJson, sendJson and fetch are also the transport of feature modules with routes of
  // their own (dispatch-api.ts), so a token, timeout and error contract stay in one place.
  async listAll<T>(path: string): Promise<T[]> {
    const items: T[] = [];
    let cursor: string | null = null;
    do {
      const query = new URLSearchParams({ limit: String(pageSize) });
      if (cursor !== null) query.set('cursor', cursor);
      const page: Page<T> = await this.getJson<Page<T>>(`${path}${path.includes('?') ? '&' : '?'}${query}`);
      items.push(...page.items);
      cursor = page.next;
    } while (cursor !== null);
    return items;
  }

  async getJson<T>(path: string): Promise<T> {
    const response = await this.fetch(path, 'GET', 'application/json');
    return (await response.json()) as T;
  }

  async sendJson<T>(method: 'POST', path: string, body: unknown): Promise<T> {
    const response = await this.fetch(path, method, 'application/json', body);
    return (await response.json()) as T;
  }

  async fetch(
    path: string,
    method: string,
    accept: string,
    body?: unknown,
    timeoutMs = requestTimeoutMs,
  ): Promise<Response> {
    const headers: Record<string, string> = { Authorization: `Bearer ${this.token}`, Accept: accept };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const sentAtMs = Date.now();
    const response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    this.clock.observe(response, sentAtMs);
    if (response.status === 401) throw new UnauthorizedError();
    if (!response.ok) throw await apiErrorFrom(response);
    return response;
  }
}

function violationQuery(filters: ViolationFilters): URLSearchParams {
  const query = new URLSearchParams();
  if (filters.pack) query.set('pack', filters.pack);
  if (filters.status) query.set('status', filters.status);
  if (filters.confidence) query.set('confidence', filters.confidence);
  return query;
}

/** Needs no token: the map can be prepared while the user is still entering one. */
export async function fetchDashboardConfig(clock: ServerClock): Promise<DashboardConfig> {
  const sentAtMs = Date.now();
  const response = await fetch('/v1/dashboard-config', {
    headers: { Accept: 'application/json' },
    signal: AbortSignal.timeout(requestTimeoutMs),
  });
  clock.observe(response, sentAtMs);
  if (!response.ok) throw await apiErrorFrom(response);
  return (await response.json()) as DashboardConfig;
}

async function apiErrorFrom(response: Response): Promise<ApiError> {
  let code: string | null = null;
  let message = `${response.status} ${response.statusText}`.trim();
  try {
    const body: unknown = await response.json();
    if (isErrorBody(body)) {
      code = body.error.code;
      message = body.error.message;
    }
  } catch {
    // Not JSON (a proxy's error page, say): the status line is all there is.
  }
  return new ApiError(response.status, code, message);
}

function isErrorBody(body: unknown): body is { error: { code: string; message: string } } {
  if (typeof body !== 'object' || body === null || !('error' in body)) return false;
  const error: unknown = body.error;
  return (
    typeof error === 'object' &&
    error !== null &&
    'code' in error &&
    typeof error.code === 'string' &&
    'message' in error &&
    typeof error.message === 'string'
  );
}
