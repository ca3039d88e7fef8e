import { LogLimiter } from '@vigia/core';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { LatLon, TravelTimeEstimator } from './dispatch-ports.js';

/**
 * The OSRM Table service answer (`/table/v1/{profile}/{coordinates}`), the part read here:
 * `durations[i][j]` seconds from source i to destination j, null where no route was found.
 * Valhalla's and GraphHopper's OSRM-compatible endpoints answer the same.
 */
const tableResponseSchema = z.object({
  code: z.string(),
  message: z.string().optional(),
  durations: z.array(z.array(z.number().nullable())).optional(),
});

export interface OsrmTravelTimesOptions {
  /** ROUTING_URL: the server's base URL, e.g. `http://osrm:5000`. */
  readonly baseUrl: string;
  /** ROUTING_TIMEOUT_MS: an answer later than this is given up on. */
  readonly timeoutMs: number;
  /** Answers when the server fails, times out or finds no route (the history model). */
  readonly fallback: TravelTimeEstimator;
  readonly log: Logger;
  /** Routing profile in the URL (default `driving`). */
  readonly profile?: string;
}

/**
 * Travel times from an OSRM-compatible routing server: one Table request per ranking, the taxis
 * as sources and the pickup as the one destination. Any failure (network, timeout, non-Ok code,
 * unexpected body) and any pair without a route fall back to the fallback estimator, so a routing
 * outage slows nothing down beyond ROUTING_TIMEOUT_MS and never stops dispatch.
 */
export class OsrmTravelTimes implements TravelTimeEstimator {
  readonly name = 'osrm';
  private readonly limiter = new LogLimiter({ maxPerInterval: 5 });

  constructor(private readonly opts: OsrmTravelTimesOptions) {}

  /** The Table request for these points: sources 0…n−1, the destination last. */
  tableUrl(origins: readonly LatLon[], destination: LatLon): string {
    const coords = [...origins, destination].map((p) => `${p.lon.toFixed(6)},${p.lat.toFixed(6)}`).join(';');
    const sources = origins.map((_, i) => i).join(';');
    const base = this.opts.baseUrl.replace(/\/+$/, '');
    return `${base}/table/v1/${this.opts.profile ?? 'driving'}/${coords}?sources=${sources}&destinations=${origins.length}&annotations=duration`;
  }

  async estimate(origins: readonly LatLon[], destination: LatLon, at: Date): Promise<number[]> {
    if (origins.length === 0) return [];
    let durations: (number | null)[];
    try {
      durations = await this.table(origins, destination);
    } catch (err) {
      const code = err instanceof RoutingError ? err.code : 'ROUTING_FAILED';
      this.limiter.warn(
        this.opts.log,
        {
          code,
          err: err instanceof RoutingError ? undefined : err,
          detail: err instanceof Error ? err.message : undefined,
        },
        `routing server failed; travel times from ${this.opts.fallback.name}`,
      );
      return this.opts.fallback.estimate(origins, destination, at);
    }
    const missing = durations.flatMap((d, i) => (d === null ? [i] : []));
    if (missing.length === 0) return durations as number[];
    const filled = await this.opts.fallback.estimate(
      missing.map((i) => origins[i] as LatLon),
      destination,
      at,
    );
    const out = [...durations] as number[];
    missing.forEach((i, k) => {
      out[i] = filled[k] as number;
    });
    return out;
  }

  private async table(origins: readonly LatLon[], destination: LatLon): Promise<(number | null)[]> {
    let res: Response;
    try {
      res = await fetch(this.tableUrl(origins, destination), { signal: AbortSignal.timeout(this.opts.timeoutMs) });
    } catch (err) {
      const timedOut = err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
      throw new RoutingError(
        timedOut ? 'ROUTING_TIMEOUT' : 'ROUTING_UNREACHABLE',
        err instanceof Error ? err.message : String(err),
      );
    }
    const text = await res.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new RoutingError('ROUTING_BAD_RESPONSE', `HTTP ${res.status}, not JSON`);
    }
    const parsed = tableResponseSchema.safeParse(body);
    if (!parsed.success) throw new RoutingError('ROUTING_BAD_RESPONSE', `HTTP ${res.status}, unexpected body`);
    const { code, message, durations } = parsed.data;
    if (!res.ok || code !== 'Ok')
      throw new RoutingError('ROUTING_REFUSED', `HTTP ${res.status} ${code}: ${message ?? ''}`);
    if (!durations || durations.length !== origins.length || durations.some((row) => row.length !== 1)) {
      throw new RoutingError('ROUTING_BAD_RESPONSE', 'durations do not match the request');
    }
    return durations.map((row) => row[0] as number | null);
  }
}

class RoutingError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}
