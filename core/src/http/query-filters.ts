import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { AppError } from '../errors.js';

/**
 * Strict query strings: a filter the route does not know is a 400, never silently ignored
 * (`GET /v1/violations?plate=…` once returned every violation). One mechanism for every route:
 * a route names the query parameters it accepts by declaring its zod query schema in its config,
 * `app.get(url, { config: { access, query: schema } }, handler)`, and a hook refuses any other
 * key with 400 `UNKNOWN_FILTER` (details: the unknown keys and the accepted ones) before the
 * handler runs. A `GET /v1/...` route that declares no query schema accepts no query parameter
 * at all. The handler still parses the values with the same schema (`parseQuery`), so a malformed
 * value stays the route's 400 `VALIDATION_FAILED` (or its own code, e.g. RANGE_TOO_LARGE).
 *
 * The check runs in `preParsing`: after the access check (a caller who may not call the route
 * learns nothing about its filters) and before any body is read.
 */

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route's query parameters: a zod object (or a pipe/transform over one). */
    query?: z.ZodType;
  }
}

export const UNKNOWN_FILTER = 'UNKNOWN_FILTER';

/** The keys a query schema accepts: the object's shape, through pipes, transforms and optionals. */
export function acceptedQueryKeys(schema: z.ZodType): string[] {
  if (schema instanceof z.ZodObject) return Object.keys(schema.shape);
  if (schema instanceof z.ZodPipe) return acceptedQueryKeys(schema.in as z.ZodType);
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodDefault) {
    return acceptedQueryKeys(schema.unwrap() as z.ZodType);
  }
  if (schema instanceof z.ZodIntersection) {
    return [...acceptedQueryKeys(schema.def.left as z.ZodType), ...acceptedQueryKeys(schema.def.right as z.ZodType)];
  }
  throw new Error('A route query schema must be a zod object (or a pipe over one)');
}

/** The query keys not in `accepted`, in the order sent. */
export function unknownQueryKeys(query: unknown, accepted: readonly string[]): string[] {
  if (!query || typeof query !== 'object') return [];
  return Object.keys(query).filter((k) => !accepted.includes(k));
}

/** The 400 for filters a route does not know, naming them and listing the ones it accepts. */
export function unknownFilterError(unknown: readonly string[], accepted: readonly string[]): AppError {
  // Keys are echoed: cut them to what a filter name can be, the client chooses their length.
  const names = unknown.map((k) => k.slice(0, 64).replace(/[^\x20-\x7e]/g, '?'));
  const list = names.map((k) => `'${k}'`).join(', ');
  const known = accepted.length > 0 ? `accepted: ${accepted.join(', ')}` : 'this route takes no query parameter';
  return new AppError(UNKNOWN_FILTER, `Unknown ${names.length === 1 ? 'filter' : 'filters'} ${list}; ${known}`, 400, {
    unknown: names,
    accepted,
  });
}

/**
 * Parses a query with its schema after refusing unknown keys: for code that reads a query
 * outside a route's declaration (a second schema on one route), and for handlers that want both
 * checks in one call. Malformed values throw the ZodError the error handler answers with
 * VALIDATION_FAILED.
 */
export function parseQuery<S extends z.ZodType>(schema: S, query: unknown): z.output<S> {
  const accepted = acceptedQueryKeys(schema);
  const unknown = unknownQueryKeys(query, accepted);
  if (unknown.length > 0) throw unknownFilterError(unknown, accepted);
  return schema.parse(query);
}

/** GET routes under `/v1/` are the API's reads: without a declaration they accept no query. */
function strictByDefault(method: string, url: string): boolean {
  return (method === 'GET' || method === 'HEAD') && url.startsWith('/v1/');
}

/** The accepted keys of a route, or undefined when its query string is not checked. */
export function routeQueryKeys(method: string, url: string, query: z.ZodType | undefined): string[] | undefined {
  if (query) return acceptedQueryKeys(query);
  return strictByDefault(method, url) ? [] : undefined;
}

export function installQueryFilterCheck(app: FastifyInstance): void {
  const keysOf = new WeakMap<z.ZodType, string[]>();
  const declared = (schema: z.ZodType) => {
    const known = keysOf.get(schema);
    if (known) return known;
    const keys = acceptedQueryKeys(schema);
    keysOf.set(schema, keys);
    return keys;
  };
  // A malformed declaration fails start-up, not a request.
  app.addHook('onRoute', (route) => {
    if (route.config?.query) declared(route.config.query);
  });
  app.addHook('preParsing', async (req: FastifyRequest) => {
    const { config, url } = req.routeOptions;
    if (url === undefined) return;
    const accepted = config.query ? declared(config.query) : strictByDefault(req.method, url) ? [] : undefined;
    if (!accepted) return;
    const unknown = unknownQueryKeys(req.query, accepted);
    if (unknown.length > 0) throw unknownFilterError(unknown, accepted);
  });
}

/**
 * A route's options with its query schema declared: `app.get(url, withQuery(read, schema), ...)`
 * where `read` is the shared `{ config: { access } }` of the route file.
 */
export function withQuery<O extends { config: object }>(options: O, query: z.ZodType): O {
  return { ...options, config: { ...options.config, query } };
}
