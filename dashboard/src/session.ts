import { ApiClient, ApiError, UnauthorizedError } from './api-client.js';
import type { Viewport } from './api-types.js';
import { forgetToken, saveToken } from './auth-token.js';
import type { ConnectionIndicator } from './connection-indicator.js';
import { deskMessages as t } from './desk-messages.js';
import type { FleetStore } from './fleet-store.js';
import { LiveConnection } from './live-connection.js';
import type { Notice } from './notice.js';
import type { ServerClock } from './server-clock.js';
import { askForToken } from './token-dialog.js';
import { fetchViewer, setViewer } from './viewer.js';
import type { ViolationSync } from './violation-sync.js';

export interface SessionOptions {
  store: FleetStore;
  clock: ServerClock;
  notice: Notice;
  indicator: ConnectionIndicator;
  /** Receives operator names as soon as they are known (popups show names, updates carry ids). */
  onOperators: (names: ReadonlyMap<string, string>) => void;
  /** Loads violations once a token is accepted and keeps them in step with the live channel. */
  violations: ViolationSync;
  /** The dispatch console's share of the live channel: each `booking` push, and every reconnect. */
  bookings?: { applyLive(booking: unknown): void; resync(): void };
}

const liveRetryDelayMs = 5000;
const maxLoadRetryDelayMs = 30_000;

/**
 * One signed-in period: loads the registry with a token, keeps the live channel open, and starts
 * over with the token form whenever the API stops accepting the token.
 */
export class DashboardSession {
  private live: LiveConnection | null = null;
  /** The area the desk map shows, for every live connection of the session (null: the whole scope). */
  private viewport: Viewport | null = null;
  /** The client of the accepted token, while the live channel is up. */
  private api: ApiClient | null = null;

  constructor(private readonly options: SessionOptions) {}

  async start(initialToken: string | null, reason: string | null = null): Promise<void> {
    let token = initialToken;
    let refusal = reason;
    let retryDelayMs = 1000;
    for (;;) {
      if (token === null) {
        this.options.indicator.show('signed-out');
        token = await askForToken(refusal ?? t.tokenAsk);
        this.options.indicator.show('connecting');
      }
      const api = new ApiClient(token, this.options.clock);
      try {
        await this.loadFleet(api);
        saveToken(token);
        this.options.notice.clear();
        this.options.violations.start(api);
        this.connectLive(api, token);
        return;
      } catch (error) {
        if (error instanceof UnauthorizedError) {
          forgetToken();
          token = null;
          refusal = t.tokenRefused;
          continue;
        }
        this.options.notice.show(t.fleetFailed(describe(error), retryDelayMs / 1000));
        await delay(retryDelayMs);
        retryDelayMs = Math.min(retryDelayMs * 2, maxLoadRetryDelayMs);
      }
    }
  }

  private async loadFleet(api: ApiClient): Promise<void> {
    const [vehicles, operators, viewer] = await Promise.all([
      api.listVehicles(),
      this.loadOperatorNames(api),
      fetchViewer(api),
    ]);
    setViewer(viewer);
    this.options.onOperators(operators);
    this.options.store.clear();
    this.options.store.mergeListing(vehicles);
  }

  /** Some roles may list vehicles but not operators; the map is still useful without the names. */
  private async loadOperatorNames(api: ApiClient): Promise<Map<string, string>> {
    try {
      const operators = await api.listOperators();
      return new Map(operators.map((operator) => [operator.id, operator.name]));
    } catch (error) {
      if (error instanceof ApiError && error.status === 403) return new Map();
      throw error;
    }
  }

  /** The live feed follows this area from now on, through reconnections and new sign-ins. */
  setViewport(viewport: Viewport | null): void {
    this.viewport = viewport;
    this.live?.setViewport(viewport);
  }

  /**
   * A request outside the session's own (the violations feed, say) was refused for the token: find
   * out whether the token is really gone, and if so start over with the token form.
   */
  recheckToken(): void {
    const live = this.live;
    if (live === null) return;
    const api = this.api;
    if (api === null) return;
    api.verifyToken().catch((error: unknown) => {
      // Anything else is the network's doing, which the live channel and the caller retry anyway.
      if (error instanceof UnauthorizedError) this.onLiveTrouble(api, live, error);
    });
  }

  private connectLive(api: ApiClient, token: string): void {
    const { store, indicator, notice, violations } = this.options;
    this.live?.close();
    this.api = api;
    const live = new LiveConnection(token, {
      onFleet: (updates) => store.applyUpdates(updates),
      onFleetDelta: (delta, ids) => store.applyDelta(delta, ids),
      onViolation: (violation) => violations.applyLive(violation),
      onBooking: (booking) => this.options.bookings?.applyLive(booking),
      onStateChange: (state) => indicator.show(state),
      onResync: () => {
        violations.resync();
        this.options.bookings?.resync();
        api.listVehicles().then(
          (vehicles) => store.mergeListing(vehicles),
          (error: unknown) => this.onLiveTrouble(api, live, error),
        );
      },
      onRefused: () => {
        api.verifyToken().then(
          () => window.setTimeout(() => live.retry(), liveRetryDelayMs),
          (error: unknown) => this.onLiveTrouble(api, live, error),
        );
      },
    });
    live.setViewport(this.viewport);
    this.live = live;
    notice.clear();
  }

  private onLiveTrouble(api: ApiClient, live: LiveConnection, error: unknown): void {
    if (error instanceof UnauthorizedError) {
      live.close();
      this.live = null;
      this.api = null;
      this.options.violations.stop();
      setViewer(null);
      forgetToken();
      void this.start(null, t.tokenRefused);
      return;
    }
    this.options.notice.show(t.liveInterrupted(describe(error)));
    window.setTimeout(() => {
      live.retry();
      api.listVehicles().then(
        (vehicles) => {
          this.options.store.mergeListing(vehicles);
          this.options.notice.clear();
        },
        () => {
          // The next reconnect or refusal brings us back here.
        },
      );
    }, liveRetryDelayMs);
  }
}

function describe(error: unknown): string {
  if (error instanceof ApiError) return error.code ?? `HTTP ${error.status}`;
  if (error instanceof DOMException && error.name === 'TimeoutError') return t.timedOut;
  if (error instanceof Error) return error.message;
  return String(error);
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => window.setTimeout(resolve, ms));
}
