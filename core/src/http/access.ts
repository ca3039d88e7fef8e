import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import { authenticate, type Principal, type Role, type TokenResolver } from './auth.js';

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
export function installAccessControl(app: FastifyInstance, resolve: TokenResolver): AccessControl {
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
  app.addHook('onRequest', async (req) => {
    const access = req.routeOptions.config.access;
    // Not-found requests have no route config; they get the 404 handler, never data.
    if (access === undefined || access === 'public') return;
    const principal = await authenticate(req, resolve);
    if (!access.includes(callerOf(principal))) {
      throw new AppError('FORBIDDEN', 'This token may not call this route', 403);
    }
    req.principal = principal;
  });
  return {
    routes: () =>
      table
        .filter((r) => r.method !== 'HEAD')
        .map((r) => ({ method: r.method, url: r.url, access: r.config.access ?? 'public' })),
  };
}

/** The caller `onRequest` admitted; only on routes that declare callers. */
export function principalOf(req: FastifyRequest): Principal {
  if (!req.principal) throw new AppError('INTERNAL_ERROR', 'Route has no declared callers', 500);
  return req.principal;
}
