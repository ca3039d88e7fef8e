import underPressure from '@fastify/under-pressure';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors.js';

/**
 * Load shedding from the event loop's own measure of load (@fastify/under-pressure, sampled once a
 * second): past a threshold every request is answered at once with 503 `OVERLOADED` and
 * `Retry-After`, in the contract's shape, instead of queueing until the client times out (a busy
 * process once kept 200 clients waiting up to 39 s). Routes marked `config.overload: 'exempt'`
 * (`/health`, `/ready`) always run, so orchestration never kills a process for being busy.
 */
export interface OverloadLimits {
  /** Mean event-loop delay over the last sample, ms; 0 = not checked. */
  maxEventLoopDelayMs: number;
  /** Event-loop utilisation over the last sample, 0–1; 0 = not checked. */
  maxEventLoopUtilization: number;
  /** `Retry-After` of the 503, seconds. */
  retryAfterS?: number;
  /** How often load is sampled, ms (default 1000). */
  sampleIntervalMs?: number;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** `exempt`: answered even when the process sheds load. */
    overload?: 'exempt';
  }
}

export function installOverloadShedding(app: FastifyInstance, limits: OverloadLimits): void {
  const retryAfter = String(limits.retryAfterS ?? 2);
  // One log line per second at most while shedding: an overloaded process must not also flood its log.
  let lastLogged = 0;
  let shedSinceLog = 0;
  // Not awaited: the plugin loads with the others, in registration order, before the access hook.
  void app.register(underPressure, {
    maxEventLoopDelay: limits.maxEventLoopDelayMs,
    maxEventLoopUtilization: limits.maxEventLoopUtilization,
    // Utilisation of the last interval, not since start: a long idle past must not hide load now.
    eventLoopUtilizationMode: 'interval',
    sampleInterval: limits.sampleIntervalMs ?? 1000,
    pressureHandler: async (req, reply, type, value) => {
      if (req.routeOptions.config.overload === 'exempt') return;
      shedSinceLog++;
      if (Date.now() - lastLogged >= 1000) {
        req.log.warn({ code: 'OVERLOADED', type, value, shed: shedSinceLog }, 'requests shed under load');
        lastLogged = Date.now();
        shedSinceLog = 0;
      }
      reply.header('retry-after', retryAfter);
      throw new AppError('OVERLOADED', 'The server is overloaded; retry later', 503, {
        retryAfterS: Number(retryAfter),
      });
    },
  });
}
