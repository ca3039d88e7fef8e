import { AppError, type Caller, type Principal, type Role } from '@vigia/core';

/**
 * Who may do what in the registry. The admin token may do everything. Regulators manage the
 * registry; enforcement officers read it; dispatchers and operators read the part that belongs
 * to their operators (their token's `operatorIds`). Devices may not use the registry.
 */
export interface Access {
  read: readonly Role[];
  write: readonly Role[];
}

export type ReadScope = { all: true } | { all: false; operatorIds: string[] };

export function requireRead(principal: Principal, access: Access): ReadScope {
  if (principal.kind === 'admin') return { all: true };
  if (principal.kind === 'user' && access.read.includes(principal.role)) {
    return principal.role === 'operator' || principal.role === 'dispatcher'
      ? { all: false, operatorIds: principal.operatorIds }
      : { all: true };
  }
  throw new AppError('FORBIDDEN', 'This token may not read this collection', 403);
}

export function requireWrite(principal: Principal, access: Access): void {
  if (principal.kind === 'admin') return;
  if (principal.kind === 'user' && access.write.includes(principal.role)) return;
  throw new AppError('FORBIDDEN', 'This token may not change this collection', 403);
}

/** The callers a route of the collection admits before reading the body; scope is checked after. */
export const readers = (access: Access): Caller[] => ['admin', ...access.read];
export const writers = (access: Access): Caller[] => ['admin', ...access.write];
