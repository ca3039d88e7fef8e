import type { DashboardConfig, OperatorItem, Page, VehicleItem } from './api-types.js';
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

const requestTimeoutMs = 15_000;
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

  private async listAll<T>(path: string): Promise<T[]> {
    const items: T[] = [];
    let cursor: string | null = null;
    do {
      const query = new URLSearchParams({ limit: String(pageSize) });
      if (cursor !== null) query.set('cursor', cursor);
      const page: Page<T> = await this.getJson<Page<T>>(`${path}?${query}`);
      items.push(...page.items);
      cursor = page.next;
    } while (cursor !== null);
    return items;
  }

  private async getJson<T>(path: string): Promise<T> {
    const response = await fetch(path, {
      headers: { Authorization: `Bearer ${this.token}`, Accept: 'application/json' },
      signal: AbortSignal.timeout(requestTimeoutMs),
    });
    this.clock.observe(response);
    if (response.status === 401) throw new UnauthorizedError();
    if (!response.ok) throw await apiErrorFrom(response);
    return (await response.json()) as T;
  }
}

/** Needs no token: the map can be prepared while the user is still entering one. */
export async function fetchDashboardConfig(clock: ServerClock): Promise<DashboardConfig> {
  const response = await fetch('/v1/dashboard-config', {
    headers: { Accept: 'application/json' },
    signal: AbortSignal.timeout(requestTimeoutMs),
  });
  clock.observe(response);
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
