import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import type { Logger } from 'pino';
import { type AccessEntry, installAccessControl } from './access.js';
import type { TokenResolver } from './auth.js';
import { installErrorHandler } from './error-handler.js';

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
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route with its declared access: the authorization matrix. */
    accessRoutes(): AccessEntry[];
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
  });
  installErrorHandler(app);
  const access = installAccessControl(app, options.resolveToken);
  app.decorate('accessRoutes', access.routes);
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  // Node closes only the connections idle when closing starts; a keep-alive connection whose
  // request was in flight would then stay open until its timeout and hold the exit.
  app.addHook('onSend', async (_req, reply) => {
    if (closing) reply.header('connection', 'close');
  });
  app.get('/health', { config: { access: 'public' } }, async () => ({ status: 'ok' }));
  app.get('/ready', { config: { access: 'public' } }, async (_req, reply) => {
    const results = await Promise.all(
      options.checks.map(async (c) => [c.name, await c.check().catch(() => false)] as const),
    );
    const checks = Object.fromEntries(results.map(([name, ok]) => [name, ok ? 'ok' : 'unreachable']));
    const ready = !closing && results.every(([, ok]) => ok);
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : closing ? 'closing' : 'not-ready', checks });
  });
  return app;
}
