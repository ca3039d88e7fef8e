import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import type { Logger } from 'pino';
import { type AccessEntry, installAccessControl } from './access.js';
import type { TokenResolver } from './auth.js';
import { clientErrorHandler, frameworkErrors, installErrorHandler } from './error-handler.js';
import { FailedAuthLimiter, type FailedAuthLimits } from './failed-auth-limiter.js';
import { installOverloadShedding, type OverloadLimits } from './overload.js';
import { installQueryFilterCheck } from './query-filters.js';
import { rejectControlCharactersInUrl } from './url-text.js';

export interface ReadinessCheck {
  name: string;
  check(): Promise<boolean>;
}

export interface HttpServerOptions {
  log: Logger;
  bodyLimit?: number;
  checks: ReadinessCheck[];
  /** Resolves the bearer tokens of routes that declare their callers (`config.access`). */
  resolveToken: TokenResolver;
  /** Failed authentications per client address before 429 (AUTH_FAILURE_LIMIT); default 20 a minute. */
  failedAuth?: FailedAuthLimits;
  /** Event-loop thresholds past which requests get 503 OVERLOADED; default: mean delay over 500 ms. */
  overload?: OverloadLimits;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route with its declared access: the authorization matrix. */
    accessRoutes(): AccessEntry[];
    /** The process's one failed-authentication budget: the REST check and the live handshake share it. */
    failedAuth: FailedAuthLimiter;
  }
}

/**
 * The Fastify instance every process starts from: contract error bodies, `GET /health`
 * (liveness: the process answers) and `GET /ready` (every dependency reachable; 503 otherwise,
 * and 503 while shutting down so a load balancer stops sending).
 */
export function createHttpServer(options: HttpServerOptions): FastifyInstance {
  const app = Fastify({
    loggerInstance: options.log as FastifyBaseLogger,
    bodyLimit: options.bodyLimit ?? 1024 * 1024,
    // One line per telemetry request would drown the logs; errors are still logged by the handler.
    logController: new LogController({ disableRequestLogging: true }),
    forceCloseConnections: 'idle',
    return503OnClosing: true,
    // Router errors (malformed percent-encoding, an over-long path parameter) and broken HTTP
    // (oversized headers, timeouts) answer in the contract's error shape too.
    frameworkErrors,
    clientErrorHandler,
  });
  installErrorHandler(app);
  // Registered before the access check so that an overloaded process sheds a request before looking up its token.
  installOverloadShedding(app, options.overload ?? { maxEventLoopDelayMs: 500, maxEventLoopUtilization: 0 });
  const failedAuth = new FailedAuthLimiter(options.failedAuth ?? { max: 20, windowMs: 60_000 });
  app.decorate('failedAuth', failedAuth);
  const access = installAccessControl(app, options.resolveToken, failedAuth);
  app.decorate('accessRoutes', access.routes);
  rejectControlCharactersInUrl(app);
  installQueryFilterCheck(app);
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  // Node closes only the connections idle when closing starts; a keep-alive connection whose
  // request was in flight would then stay open until its timeout and hold the exit.
  app.addHook('onSend', async (_req, reply) => {
    if (closing) reply.header('connection', 'close');
  });
  app.get('/health', { config: { access: 'public', overload: 'exempt' } }, async () => ({ status: 'ok' }));
  // Answered under load too, but not ready: a load balancer then sends its traffic to a calmer process.
  app.get('/ready', { config: { access: 'public', overload: 'exempt' } }, async (_req, reply) => {
    const results = await Promise.all(
      options.checks.map(async (c) => [c.name, await c.check().catch(() => false)] as const),
    );
    const checks = Object.fromEntries(results.map(([name, ok]) => [name, ok ? 'ok' : 'unreachable']));
    const overloaded = app.isUnderPressure();
    const ready = !closing && !overloaded && results.every(([, ok]) => ok);
    const status = ready ? 'ready' : closing ? 'closing' : overloaded ? 'overloaded' : 'not-ready';
    return reply.code(ready ? 200 : 503).send({ status, checks });
  });
  return app;
}
