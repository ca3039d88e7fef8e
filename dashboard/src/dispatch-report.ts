import { type ApiClient, ApiError, UnauthorizedError } from './api-client.js';

export interface DispatchReportOptions {
  client: () => ApiClient | null;
  onUnauthorized: () => void;
}

/**
 * The cooperative's report (`GET /v1/bookings/report`, with a CSV download). Hidden while the
 * server does not offer the route (404).
 */
export class DispatchReportPanel {
  constructor(
    private readonly root: HTMLElement,
    private readonly options: DispatchReportOptions,
  ) {
    root.hidden = true;
  }

  async load(): Promise<void> {
    const client = this.options.client();
    if (client === null) return;
    try {
      await client.getJson<unknown>('/v1/bookings/report');
    } catch (error) {
      if (error instanceof UnauthorizedError) this.options.onUnauthorized();
      if (error instanceof ApiError && error.status === 404) this.root.hidden = true;
    }
  }
}
