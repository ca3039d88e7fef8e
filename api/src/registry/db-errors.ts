import { AppError } from '@vigia/core';

/** PostgreSQL constraint violations, as both drivers report them, turned into contract errors. */
export function translateDbError(err: unknown): unknown {
  const e = err as { code?: unknown; detail?: unknown; message?: unknown };
  const detail = typeof e.detail === 'string' ? e.detail : typeof e.message === 'string' ? e.message : undefined;
  switch (e.code) {
    case '23505':
      return new AppError('ALREADY_EXISTS', detail ?? 'A record with this key already exists', 409);
    case '23503':
      return new AppError('REFERENCE_NOT_FOUND', detail ?? 'A referenced record does not exist', 422);
    case '23514':
    case '22P02':
    case '22007':
    case '22008':
      return new AppError('VALIDATION_FAILED', detail ?? 'A value is not acceptable', 400);
    default:
      return err;
  }
}
