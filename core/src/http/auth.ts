import type { FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';

export const roles = ['regulator', 'enforcement', 'dispatcher', 'operator'] as const;
export type Role = (typeof roles)[number];

/** Who is calling. A device token may only send for its own device (and answer its vehicle's offers). */
export type Principal =
  | { kind: 'admin' }
  | { kind: 'device'; deviceId: string; identifier: string; vehicleId: string }
  | { kind: 'user'; userId: string; role: Role; operatorIds: string[] };

/**
 * Resolves a bearer token to a principal, or undefined when it is not a known token. `fresh`
 * skips any cache: the live hub re-checks its sockets' tokens that way when users change.
 */
export type TokenResolver = (token: string, opts?: { fresh?: boolean }) => Promise<Principal | undefined>;

export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

export async function authenticate(req: FastifyRequest, resolve: TokenResolver): Promise<Principal> {
  const token = bearerToken(req.headers.authorization);
  if (!token) {
    throw new AppError('MISSING_TOKEN', 'An Authorization: Bearer <token> header is required', 401);
  }
  const principal = await resolve(token);
  if (!principal) throw new AppError('INVALID_TOKEN', 'The token is not valid', 401);
  return principal;
}
