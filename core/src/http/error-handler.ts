import type { FastifyError, FastifyInstance } from 'fastify';
import type { ZodError } from 'zod';
import { AppError, errorBody, isDatabaseUnavailable } from '../errors.js';

/** Fastify's own error codes, mapped to the contract's codes. */
const fastifyCodes: Record<string, { code: string; status: number }> = {
  FST_ERR_CTP_BODY_TOO_LARGE: { code: 'BODY_TOO_LARGE', status: 413 },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { code: 'UNSUPPORTED_MEDIA_TYPE', status: 415 },
  FST_ERR_CTP_EMPTY_JSON_BODY: { code: 'EMPTY_BODY', status: 400 },
  FST_ERR_CTP_INVALID_JSON_BODY: { code: 'MALFORMED_JSON', status: 400 },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { code: 'BAD_CONTENT_LENGTH', status: 400 },
  FST_ERR_VALIDATION: { code: 'VALIDATION_FAILED', status: 400 },
};

export function zodDetails(err: ZodError): { path: string; message: string }[] {
  return err.issues.map((i) => ({ path: i.path.join('.'), message: i.message }));
}

/** Every error leaves as `{ error: { code, message, details } }`; 5xx are logged, never explained. */
export function installErrorHandler(app: FastifyInstance): void {
  app.setNotFoundHandler((req, reply) => {
    reply.code(404).send(errorBody('NOT_FOUND', `No route ${req.method} ${req.url.split('?')[0]}`));
  });
  app.setErrorHandler((err: FastifyError | AppError | Error, req, reply) => {
    if (err instanceof AppError) {
      if (err.statusCode >= 500) req.log.error({ err, code: err.code }, err.message);
      if (err.statusCode === 503) reply.header('retry-after', '1');
      return reply.code(err.statusCode).send(errorBody(err.code, err.message, err.details));
    }
    if (err.name === 'ZodError') {
      const details = zodDetails(err as unknown as ZodError);
      return reply.code(400).send(errorBody('VALIDATION_FAILED', 'The request does not match the schema', details));
    }
    const fastifyError = err as FastifyError;
    const mapped = fastifyError.code ? fastifyCodes[fastifyError.code] : undefined;
    if (mapped) return reply.code(mapped.status).send(errorBody(mapped.code, err.message));
    if (err instanceof SyntaxError || (fastifyError.statusCode === 400 && /JSON/i.test(err.message))) {
      return reply.code(400).send(errorBody('MALFORMED_JSON', `The body is not valid JSON: ${err.message}`));
    }
    const status = fastifyError.statusCode;
    if (status && status >= 400 && status < 500) {
      return reply.code(status).send(errorBody('BAD_REQUEST', err.message));
    }
    if (isDatabaseUnavailable(err)) {
      req.log.warn({ err, code: 'DATABASE_UNAVAILABLE' }, 'database unreachable');
      return reply
        .code(503)
        .header('retry-after', '5')
        .send(errorBody('DATABASE_UNAVAILABLE', 'The database is unreachable; retry'));
    }
    req.log.error({ err, code: 'INTERNAL_ERROR' }, 'unhandled error');
    return reply.code(500).send(errorBody('INTERNAL_ERROR', 'Internal error'));
  });
}
