import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors.js';
import { CONTROL_CHARACTER, controlCharacterAt } from '../telemetry.js';

/**
 * Path parameters and query values are text the routes hand to SQL and logs. A NUL in one made
 * PostgreSQL fail the query (a 500); tabs and line breaks would split log and CSV lines. One check
 * for every route, before any handler sees them: 400 CONTROL_CHARACTER naming the parameter.
 */
export function rejectControlCharactersInUrl(app: FastifyInstance): void {
  app.addHook('onRequest', async (req) => {
    const sources: [string, unknown][] = [
      ['path parameter', req.params],
      ['query parameter', req.query],
    ];
    for (const [kind, values] of sources) {
      if (!values || typeof values !== 'object') continue;
      for (const [name, value] of Object.entries(values)) {
        const texts = Array.isArray(value) ? value : [value];
        if ([name, ...texts].some((t) => typeof t === 'string' && controlCharacterAt(t) >= 0)) {
          throw new AppError(
            CONTROL_CHARACTER,
            `The ${kind} '${name.replace(/[^\x20-\x7e]/g, '?')}' contains a control character`,
            400,
          );
        }
      }
    }
  });
}
