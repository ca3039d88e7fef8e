import { AppError } from '@vigia/core';

/** One entry of a request body: a parsed JSON value, or why the line could not be parsed. */
export type BodyItem = { ok: true; value: unknown } | { ok: false; message: string };

/**
 * The three body forms of `POST /v1/telemetry`: one JSON record, a JSON array of records, or
 * NDJSON (one record per line). A malformed NDJSON line rejects that line only; a malformed JSON
 * document is a 400 (Fastify's parser answers before we get here).
 */
export function bodyItems(body: unknown, contentType: string | undefined): BodyItem[] {
  if (contentType?.startsWith('application/x-ndjson')) {
    if (typeof body !== 'string') throw new AppError('MALFORMED_BODY', 'Expected NDJSON text', 400);
    return body
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line.length > 0)
      .map((line): BodyItem => {
        try {
          return { ok: true, value: JSON.parse(line) };
        } catch (err) {
          return { ok: false, message: `Line is not valid JSON: ${(err as Error).message}` };
        }
      });
  }
  if (body === undefined || body === null) throw new AppError('EMPTY_BODY', 'The request has no body', 400);
  return (Array.isArray(body) ? body : [body]).map((value) => ({ ok: true, value }));
}
