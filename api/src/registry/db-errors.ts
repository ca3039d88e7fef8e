import { AppError } from '@vigia/core';

/**
 * PostgreSQL errors a registry write can meet, as both drivers (node-postgres and PGlite) report
 * them, turned into contract errors. The answer names the API field and the caller's own value;
 * never the database's text (`... is not present in table "operators"`), which tells a caller our
 * table and column names and is not the contract's wording. The original error is kept as `cause`
 * for the log.
 */

/** Constraints whose meaning a column name alone does not say. */
const constraintMessages: Record<string, { field: string; message: string }> = {
  stand_point_needs_radius: { field: 'radiusM', message: 'A stand given as a Point needs radiusM greater than 0' },
  speed_limit_zone_needs_limit: {
    field: 'speedLimitKmh',
    message: 'A speed-limit zone needs speedLimitKmh greater than 0',
  },
};

const MAX_ECHO = 64;

interface PgError {
  code?: unknown;
  detail?: unknown;
  constraint?: unknown;
  column?: unknown;
}

/** `Key (operator_id)=(op-x) ...` → columns and values, to name them with the API's words. */
function keyOf(detail: unknown): { columns: string[]; values: string[] } | undefined {
  if (typeof detail !== 'string') return undefined;
  const m = /^Key \(([^)]*)\)=\((.*)\)/.exec(detail);
  if (!m?.[1] || m[2] === undefined) return undefined;
  const columns = m[1].split(',').map((c) => c.trim());
  // Values are split on ", " only when there are several columns (a single value may hold commas).
  const values = columns.length === 1 ? [m[2]] : m[2].split(', ');
  return { columns, values };
}

const echo = (value: string | undefined) =>
  value === undefined ? '' : ` '${value.length > MAX_ECHO ? `${value.slice(0, MAX_ECHO)}…` : value}'`;

/**
 * @param fields API field → column of the collection written, to name a column in API words.
 * @returns an AppError for a constraint or data error, or the error itself (a 5xx) otherwise.
 */
export function translateDbError(err: unknown, fields: Record<string, string> = {}): unknown {
  if (err instanceof AppError || typeof err !== 'object' || err === null) return err;
  const e = err as PgError;
  const fieldOf = (column: string) => Object.entries(fields).find(([, c]) => c === column)?.[0] ?? column;
  const key = keyOf(e.detail);
  const named = key?.columns.map(fieldOf);
  const wrap = (code: string, message: string, status: number, details?: unknown) =>
    Object.assign(new AppError(code, message, status, details), { cause: err });
  switch (e.code) {
    case '23505': {
      const message = named
        ? `A current record with ${named.join(', ')}${echo(key?.values.join(', '))} already exists`
        : 'A record with this key already exists';
      return wrap('ALREADY_EXISTS', message, 409, named ? { fields: named } : undefined);
    }
    case '23503': {
      const message = named
        ? `${named.join(', ')}${echo(key?.values.join(', '))} does not exist`
        : 'A referenced record does not exist';
      return wrap('REFERENCE_NOT_FOUND', message, 422, named ? { fields: named } : undefined);
    }
    case '23514': {
      const known = typeof e.constraint === 'string' ? constraintMessages[e.constraint] : undefined;
      if (known) return wrap('VALIDATION_FAILED', known.message, 400, [{ path: known.field, message: known.message }]);
      return wrap('VALIDATION_FAILED', 'A value is not acceptable', 400);
    }
    case '23502': {
      const field = typeof e.column === 'string' ? fieldOf(e.column) : undefined;
      const message = field ? `${field} is required` : 'A required value is missing';
      return wrap('VALIDATION_FAILED', message, 400, field ? [{ path: field, message }] : undefined);
    }
    // Malformed or out-of-range values, too long text, bytes PostgreSQL cannot store (NUL).
    case '22P02':
    case '22007':
    case '22008':
    case '22001':
    case '22003':
    case '22021':
    case '22P05':
      return wrap('VALIDATION_FAILED', 'A value is not acceptable', 400);
    default:
      return err;
  }
}
