import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
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
  FST_ERR_BAD_URL: { code: 'BAD_URL', status: 400 },
  FST_ERR_MAX_PARAM_LENGTH: { code: 'URI_TOO_LONG', status: 414 },
};

/**
 * Errors the router raises before any route runs (Fastify's `frameworkErrors`): a malformed
 * percent-encoding (`/%`) or a path parameter longer than `maxParamLength`. Without this Fastify
 * answers them in its own shape.
 */
export function frameworkErrors(err: FastifyError, req: FastifyRequest, reply: FastifyReply): void {
  const mapped = fastifyCodes[err.code];
  const status = mapped?.status ?? (err.statusCode && err.statusCode < 500 ? err.statusCode : 400);
  // The message echoes the offending path: cut it, an attacker chooses its length.
  const message = mapped?.code === 'URI_TOO_LONG' ? 'A path segment is too long' : 'The URL is not valid';
  req.log.debug({ code: mapped?.code ?? 'BAD_REQUEST', err: err.code }, 'router refused the URL');
  void reply.code(status).send(errorBody(mapped?.code ?? 'BAD_REQUEST', message));
}

/** What Node's HTTP parser refuses before Fastify sees a request, answered on the raw socket. */
const clientErrors: Record<string, { status: number; reason: string; code: string; message: string }> = {
  HPE_HEADER_OVERFLOW: {
    status: 431,
    reason: 'Request Header Fields Too Large',
    code: 'HEADERS_TOO_LARGE',
    message: 'The request line and headers exceed the size limit',
  },
  ERR_HTTP_REQUEST_TIMEOUT: {
    status: 408,
    reason: 'Request Timeout',
    code: 'REQUEST_TIMEOUT',
    message: 'The request took too long to arrive',
  },
};

/** Fastify's `clientErrorHandler`: malformed or oversized HTTP in the contract's error shape, then close. */
export function clientErrorHandler(err: Error & { code?: string }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const known = err.code ? clientErrors[err.code] : undefined;
  const { status, reason, code, message } = known ?? {
    status: 400,
    reason: 'Bad Request',
    code: 'MALFORMED_REQUEST',
    message: 'The request is not valid HTTP',
  };
  const body = JSON.stringify(errorBody(code, message));
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nContent-Type: application/json; charset=utf-8\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

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
      // Shed requests are counted and logged once a second by the overload check, not one line each.
      if (err.statusCode >= 500 && err.code !== 'OVERLOADED') req.log.error({ err, code: err.code }, err.message);
      if (err.statusCode === 503 && !reply.hasHeader('retry-after')) reply.header('retry-after', '1');
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
