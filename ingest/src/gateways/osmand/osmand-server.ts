import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from 'fastify';
import type { GatewayContext } from '../gateway-context.js';
import type { Channel } from '../metrics/gateway-metrics.js';
import { resolveDevice } from '../pipeline/device-access.js';
import type { DecodedRecord } from '../pipeline/record-sink.js';
import { mapProfileFields } from '../profiles/field-mapping.js';
import type { OsmandSource } from '../profiles/profile-schema.js';
import {
  type OsmAndForm,
  type OsmAndParse,
  type OsmAndPosition,
  parseOsmandJson,
  parseOsmandQuery,
} from './osmand-request.js';

const CHANNEL: Channel = { protocol: 'osmand', transport: 'http' };

export interface RunningOsmandGateway {
  port: number;
  /** Stops accepting; requests in flight are stored and answered first. */
  close(): Promise<void>;
}

/** Retry-After for storage trouble: the clients buffer and re-send, so a short pause is enough. */
const RETRY_AFTER_S = 5;

function isJson(req: FastifyRequest): boolean {
  return (req.headers['content-type'] ?? '').toLowerCase().startsWith('application/json');
}

/**
 * The OsmAnd protocol (Traccar Client, OsmAnd's live tracking, many small trackers) on its own
 * port. Answers as Traccar does, so clients behave as they do with Traccar: 200 with an empty body
 * once the position is durable; 400 for an unregistered id in the query form and 404 in the JSON
 * form; 400 for a request that cannot be a position (impossible coordinates, a time years ahead).
 * Storage trouble or an unreachable registry is 503 with Retry-After: the client keeps the position
 * and sends it again, so nothing is lost. A registry entry naming a profile that does not exist is
 * not the phone's fault and no retry cures it: the fix is stored without profile inputs, answered
 * 200, and logged (PROFILE_UNAVAILABLE; `resolveDevice`). Every refusal is logged with its reason
 * and counted.
 *
 * Traccar Client retries every answer but 200, a 400 included, so a position refused for good
 * stays at the head of that phone's queue; the per-reason counters and the log line naming the
 * device are how an operator sees such a phone (its clock or GPS is broken).
 */
export async function startOsmandGateway(
  ctx: GatewayContext,
  listen: { host: string; port: number },
): Promise<RunningOsmandGateway> {
  const app = Fastify({
    loggerInstance: ctx.log.child({ gateway: 'osmand' }) as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: ctx.limits.osmandBodyLimitBytes,
    requestTimeout: ctx.limits.osmandRequestTimeoutMs,
    forceCloseConnections: 'idle',
    return503OnClosing: true,
  });
  // The urlencoded form, and whatever content type a small tracker puts on its query string.
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));

  const refuse = (reply: FastifyReply, status: number, code: string, message: string, fields: object = {}) => {
    if (code === 'NO_POSITION') ctx.metrics.rejected(CHANNEL, 'no_position');
    else ctx.metrics.badInput(CHANNEL, code.toLowerCase());
    // Anyone can send refusals by the thousand: the counter counts each, the log a few per code.
    ctx.logLimiter.warn(ctx.log, { ...CHANNEL, code, ...fields }, `OsmAnd request refused: ${message}`);
    return reply.code(status).type('text/plain; charset=utf-8').send(`${code}: ${message}\n`);
  };

  app.setErrorHandler((err: FastifyError, req, reply) => {
    const fastifyCode = err.code;
    const remote = req.ip;
    if (fastifyCode === 'FST_ERR_CTP_BODY_TOO_LARGE')
      return refuse(reply, 413, 'BODY_TOO_LARGE', err.message, { remote });
    if (fastifyCode === 'FST_ERR_CTP_INVALID_JSON_BODY' || err instanceof SyntaxError) {
      return refuse(reply, 400, 'MALFORMED_JSON', err.message, { remote });
    }
    if (err.statusCode === 400) return refuse(reply, 400, 'BAD_REQUEST', err.message, { remote });
    ctx.log.error({ ...CHANNEL, err }, 'OsmAnd request failed');
    return reply.code(500).type('text/plain; charset=utf-8').send('INTERNAL_ERROR\n');
  });

  const handler = async (req: FastifyRequest, reply: FastifyReply) => {
    const remote = req.ip;
    const parse = parseRequest(req);
    if (!parse.ok && !parse.identifier) return refuse(reply, 400, parse.code, parse.message, { remote });
    const identifier = parse.identifier as string;

    let access: Awaited<ReturnType<typeof resolveDevice>>;
    try {
      // A registry entry naming a missing profile is logged (PROFILE_UNAVAILABLE) and the fix stored.
      access = await resolveDevice(ctx.devices, ctx.profiles, 'osmand', identifier, ctx.log);
    } catch (err) {
      // The registry is unreachable: a transient failure, so the client keeps the position and retries.
      ctx.log.error({ ...CHANNEL, device: identifier, err, code: 'LOOKUP_FAILED' }, 'device lookup failed');
      return reply
        .code(503)
        .header('retry-after', String(RETRY_AFTER_S))
        .type('text/plain; charset=utf-8')
        .send('LOOKUP_FAILED: try again\n');
    }
    if (!access.ok) {
      // Traccar answers an unknown id with 400 in the query form and 404 in the JSON form.
      return refuse(reply, parse.form === 'json' ? 404 : 400, access.code, access.message, {
        device: identifier,
        remote,
      });
    }
    if (!parse.ok) {
      return refuse(reply, 400, parse.code, parse.message, { device: identifier, remote });
    }

    const now = Date.now();
    const records = parse.positions.map((p, i) => ({
      ...toDecoded(identifier, p, access.profile, now),
      raw: rawPosition(req, parse.form, i),
    }));
    let outcome: Awaited<ReturnType<typeof ctx.sink.store>>;
    try {
      // A request with no valid position is answered 400 and its records are not kept: the client
      // was told, and retries or drops them by its own logic. Refused positions of a request
      // answered 200 (a JSON batch with valid ones) were acknowledged, so they are quarantined.
      outcome = await ctx.sink.store(CHANNEL, access.device, records, 'unless-all-refused');
    } catch (err) {
      ctx.log.warn(
        { ...CHANNEL, device: identifier, err, code: 'STORAGE_FAILED' },
        'position not stored; client will retry',
      );
      return reply
        .code(503)
        .header('retry-after', String(RETRY_AFTER_S))
        .type('text/plain; charset=utf-8')
        .send('STORAGE_UNAVAILABLE: not stored, send again\n');
    }
    if (outcome.refused.length === records.length) {
      const first = outcome.refused[0];
      // Already logged and counted by the sink, record by record.
      return reply
        .code(400)
        .type('text/plain; charset=utf-8')
        .send(`${first?.code ?? 'REFUSED'}: ${first?.message ?? 'refused'}\n`);
    }
    ctx.metrics.ack(CHANNEL);
    return reply.code(200).send();
  };
  app.route({ method: ['GET', 'POST'], url: '*', handler });

  await app.listen({ host: listen.host, port: listen.port });
  app.server.maxConnections = ctx.limits.osmandMaxConnections;
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : listen.port;
  ctx.log.info({ ...CHANNEL, port }, 'OsmAnd gateway listening (HTTP)');
  return {
    port,
    close: () => app.close(),
  };
}

function parseRequest(req: FastifyRequest): OsmAndParse {
  if (isJson(req)) return parseOsmandJson(req.body);
  const query = req.url.indexOf('?');
  let params = new URLSearchParams(query >= 0 ? req.url.slice(query + 1) : '');
  // As Traccar: parameters in the URL, or else in the body.
  if ([...params.keys()].length === 0 && typeof req.body === 'string') params = new URLSearchParams(req.body);
  return parseOsmandQuery(params);
}

/**
 * The text a position came in, for the quarantine: the query string (or urlencoded body) of the
 * query form, which holds one position; in the JSON form the position's own \`location\` element.
 */
function rawPosition(req: FastifyRequest, form: OsmAndForm, index: number): Buffer {
  if (form === 'json') {
    const body = req.body as { device_id?: unknown; location?: unknown };
    const location = Array.isArray(body.location) ? body.location[index] : body.location;
    return Buffer.from(JSON.stringify({ device_id: body.device_id, location }));
  }
  const query = req.url.indexOf('?');
  if (query >= 0 && query < req.url.length - 1) return Buffer.from(req.url.slice(query + 1));
  return Buffer.from(typeof req.body === 'string' ? req.body : '');
}

function toDecoded(
  identifier: string,
  p: OsmAndPosition,
  profile: Parameters<typeof mapProfileFields>[0],
  nowMs: number,
): DecodedRecord {
  return {
    fix: {
      deviceId: identifier,
      tsMs: p.tsMs ?? nowMs,
      lat: p.lat,
      lon: p.lon,
      speedKmh: p.speedKmh,
      headingDeg: p.headingDeg,
      accuracyM: p.accuracyM,
    },
    mapped: mapProfileFields(profile, (m) => p.attributes.get((m as OsmandSource).attr)),
  };
}
