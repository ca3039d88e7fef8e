import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import { tokensEqual } from '../tokens.js';
import { authenticate, bearerToken, type Principal, type Role, type TokenResolver } from './auth.js';
import type { FailedAuthLimiter } from './failed-auth-limiter.js';

/**
 * Who may call a route, declared on the route itself (`config.access`) and checked in
 * `onRequest`, before Fastify reads a byte of the body: a request without a valid token, or whose
 * token may not call the route, is answered 401/403 without buffering what it sends. Handlers
 * then narrow further by scope (an operator's own vehicles), which needs the data.
 */
export type Caller = 'admin' | 'device' | Role;
export const callers: readonly Caller[] = ['admin', 'regulator', 'enforcement', 'dispatcher', 'operator', 'device'];

/** `public`: anyone, no token read. Otherwise the callers that may. */
export type RouteAccess = 'public' | readonly Caller[];

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: RouteAccess;
    /**
     * A static bearer token that may call this route besides the declared callers (METRICS_TOKEN
     * for `GET /metrics`: a scraper's credential that opens nothing else). The handler gets no
     * principal for it.
     */
    extraToken?: string;
  }
  interface FastifyRequest {
    principal?: Principal;
  }
}

export function callerOf(principal: Principal): Caller {
  return principal.kind === 'user' ? principal.role : principal.kind;
}

/** One row of the route table: what the authorization matrix test walks. */
export interface AccessEntry {
  method: string;
  url: string;
  access: RouteAccess;
}

export interface AccessControl {
  /** Every route with its declared access, filled as routes are added. */
  routes(): AccessEntry[];
}

/**
 * Installs the check. Every route must declare its access: one without fails start-up (in
 * `onReady`, so that plugins such as the static file server can mark theirs first), so a new
 * route cannot ship without a row in the authorization matrix.
 */
export function installAccessControl(
  app: FastifyInstance,
  resolve: TokenResolver,
  failedAuth: FailedAuthLimiter,
): AccessControl {
  const table: { method: string; url: string; config: { access?: RouteAccess } }[] = [];
  app.addHook('onRoute', (route) => {
    route.config ??= {};
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    // Fastify adds a HEAD route for each GET after the GET's hooks ran: it answers as the GET.
    if (route.config.access === undefined && methods.length === 1 && methods[0] === 'HEAD') {
      const get = table.find((r) => r.method === 'GET' && r.url === route.url);
      if (get?.config.access !== undefined) route.config.access = get.config.access;
    }
    for (const method of methods) table.push({ method, url: route.url, config: route.config });
  });
  app.addHook('onReady', async () => {
    const missing = table.filter((r) => r.config.access === undefined).map((r) => `${r.method} ${r.url}`);
    if (missing.length > 0) throw new Error(`Routes without a declared access: ${missing.join(', ')}`);
  });
  // A refused request's body is never read; Node would otherwise drain it, however long, to keep
  // the connection alive. Closing the connection after the answer makes refusing cost nothing.
  app.addHook('onRequest', async (req, reply) => {
    try {
      await admit(req, reply);
    } catch (err) {
      if (req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined) {
        reply.header('connection', 'close');
      }
      throw err;
    }
  });
  async function admit(req: FastifyRequest, reply: FastifyReply): Promise<void> {
    const access = req.routeOptions.config.access;
    // Not-found requests have no route config; they get the 404 handler, never data.
    if (access === undefined || access === 'public') return;
    // An address that failed too often is refused before its token is even looked up.
    const retryAfterS = failedAuth.retryAfterS(req.ip);
    if (retryAfterS !== undefined) {
      reply.header('retry-after', String(retryAfterS));
      throw tooManyFailedLogins(retryAfterS);
    }
    const extra = req.routeOptions.config.extraToken;
    const presented = extra === undefined ? undefined : bearerToken(req.headers.authorization);
    if (extra !== undefined && presented !== undefined && tokensEqual(presented, extra)) return;
    const principal = await authenticate(req, resolve).catch((err: unknown) => {
      if (err instanceof AppError && err.statusCode === 401) failedAuth.fail(req.ip);
      throw err;
    });
    if (!access.includes(callerOf(principal))) {
      throw new AppError('FORBIDDEN', 'This token may not call this route', 403);
    }
    req.principal = principal;
  }
  return {
    routes: () =>
      table
        .filter((r) => r.method !== 'HEAD')
        .map((r) => ({ method: r.method, url: r.url, access: r.config.access ?? 'public' })),
  };
}

/** The 429 of an address past AUTH_FAILURE_LIMIT; the caller sets `Retry-After`. */
export function tooManyFailedLogins(retryAfterS: number): AppError {
  return new AppError(
    'TOO_MANY_FAILED_LOGINS',
    `Too many failed authentications from this address; retry in ${retryAfterS} s`,
    429,
    { retryAfterS },
  );
}

/** The caller `onRequest` admitted; only on routes that declare callers. */
export function principalOf(req: FastifyRequest): Principal {
  if (!req.principal) throw new AppError('INTERNAL_ERROR', 'Route has no declared callers', 500);
  return req.principal;
}
