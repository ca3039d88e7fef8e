/**
 * JSON over HTTP with a bearer token, timed. Node's `fetch` (undici underneath, connections kept
 * alive); the runners bound how many requests are in flight, so its cost per request is the same
 * at every size. Answers are parsed by the caller's zod schema: a body that does not match is an
 * `undefined` answer, which the scenario counts as a wrong one.
 */
import type { z } from 'zod';

export interface Answer<T> {
  status: number;
  /** The parsed body; undefined when it is not JSON or does not match the schema. */
  body: T | undefined;
  /** Sent to answered (ms), the body read. */
  ms: number;
  /** The raw text, for error messages. */
  text: string;
}

export interface Target {
  apiUrl: string;
  ingestUrl: string;
  adminToken: string;
}

export async function call<T>(
  schema: z.ZodType<T>,
  method: 'GET' | 'POST',
  url: string,
  token: string,
  body?: unknown,
): Promise<Answer<T>> {
  const started = performance.now();
  let status = 0;
  let text = '';
  try {
    const res = await fetch(url, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    status = res.status;
    text = await res.text();
  } catch (err) {
    // A refused or reset connection is an answer too: status 0, counted as an error.
    text = err instanceof Error ? err.message : String(err);
  }
  const ms = performance.now() - started;
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  const parsed = schema.safeParse(json);
  return { status, body: parsed.success ? parsed.data : undefined, ms, text };
}

/** Like `call`, for set-up steps: anything but `expect` stops the run with the answer in the message. */
export async function must<T>(
  schema: z.ZodType<T>,
  expect: number,
  method: 'GET' | 'POST',
  url: string,
  token: string,
  body?: unknown,
): Promise<T> {
  const answer = await call(schema, method, url, token, body);
  if (answer.status !== expect || answer.body === undefined) {
    throw new Error(`${method} ${url}: ${answer.status} ${answer.text.slice(0, 300)}`);
  }
  return answer.body;
}
