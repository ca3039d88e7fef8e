import { z } from 'zod';

/** The contract's error body: `{ error: { code, message, details? } }`. */
export const errorBodySchema = z.object({
  error: z.object({ code: z.string(), message: z.string(), details: z.unknown().optional() }),
});

export interface HttpResult {
  status: number;
  /** Parsed JSON body (undefined when the body was empty or not JSON). */
  body: unknown;
  /** `Retry-After`, in milliseconds, when the server sent one. */
  retryAfterMs: number | undefined;
}

/**
 * A failed call: `status` 0 means no HTTP answer at all (refused, reset, timed out), with the
 * system error code (ECONNREFUSED, UND_ERR_CONNECT_TIMEOUT ...) as `code`.
 */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'HttpError';
  }

  /** Worth trying again later: no answer, overload, or a server-side failure. */
  get transient(): boolean {
    return this.status === 0 || this.status === 408 || this.status === 429 || this.status >= 500;
  }
}

export interface RequestOptions {
  method: 'GET' | 'POST' | 'PATCH';
  token: string;
  body?: unknown;
  signal?: AbortSignal;
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 15_000;

/** One JSON request with a bearer token. Never throws for an HTTP status: it returns it. */
export async function requestJson(url: string, options: RequestOptions): Promise<HttpResult> {
  const timeout = AbortSignal.timeout(options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  let response: Response;
  try {
    response = await fetch(url, {
      method: options.method,
      headers: {
        authorization: `Bearer ${options.token}`,
        ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal,
    });
  } catch (err) {
    throw networkError(err);
  }
  const text = await response.text().catch(() => '');
  let body: unknown;
  try {
    body = text.length > 0 ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return { status: response.status, body, retryAfterMs: parseRetryAfter(response.headers.get('retry-after')) };
}

/** Turn a non-2xx result into an HttpError carrying the server's error code. */
export function httpErrorFrom(result: HttpResult, what: string): HttpError {
  const parsed = errorBodySchema.safeParse(result.body);
  const code = parsed.success ? parsed.data.error.code : `HTTP_${result.status}`;
  const message = parsed.success ? parsed.data.error.message : `HTTP ${result.status}`;
  return new HttpError(result.status, code, `${what}: ${message}`, result.retryAfterMs);
}

function networkError(err: unknown): HttpError {
  if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) {
    return new HttpError(0, err.name === 'TimeoutError' ? 'TIMEOUT' : 'ABORTED', err.message);
  }
  const cause = err instanceof Error ? (err as Error & { cause?: unknown }).cause : undefined;
  const code =
    cause && typeof cause === 'object' && 'code' in cause && typeof cause.code === 'string'
      ? cause.code
      : 'NETWORK_ERROR';
  return new HttpError(0, code, err instanceof Error ? err.message : String(err));
}

/** `Retry-After` as delay-seconds or an HTTP date. */
export function parseRetryAfter(value: string | null, nowMs = Date.now()): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

/** Join a base URL and a path without doubling or dropping slashes. */
export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}
