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
import { type OsmAndParse, type OsmAndPosition, parseOsmandJson, parseOsmandQuery } from './osmand-request.js';

const CHANNEL: Channel = { protocol: 'osmand', transport: 'http' };

export interface RunningOsmandGateway {
  port: number;
  /** Stops accepting; requests in flight are stored and answered first. */
  close(): Promise<void>;
}

/** Retry-After for storage trouble: the clients buffer and re-send, so a short pause is enough. */
const RETRY_AFTER_S = 5;
/** A registry that names a profile that does not exist needs a person; ask the client to come back later. */
const MISCONFIGURED_RETRY_AFTER_S = 300;

function isJson(req: FastifyRequest): boolean {
  return (req.headers['content-type'] ?? '').toLowerCase().startsWith('application/json');
}

/**
 * The OsmAnd protocol (Traccar Client, OsmAnd's live tracking, many small trackers) on its own
 * port. Answers as Traccar does, so clients behave as they do with Traccar: 200 with an empty body
 * once the position is durable; 400 for an unregistered id in the query form and 404 in the JSON
 * form; 400 for a request that cannot be a position (impossible coordinates, a time years ahead).
 * Storage or registry trouble is 503 with Retry-After: the client keeps the position and sends it
 * again, so nothing is lost. Every refusal is logged with its reason and counted.
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
    ctx.log.warn({ ...CHANNEL, code, ...fields }, `OsmAnd request refused: ${message}`);
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
      access = await resolveDevice(ctx.devices, ctx.profiles, 'osmand', identifier);
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
      if (access.code === 'UNKNOWN_PROFILE' || access.code === 'PROFILE_PROTOCOL_MISMATCH') {
        reply.header('retry-after', String(MISCONFIGURED_RETRY_AFTER_S));
        return refuse(reply, 503, access.code, access.message, { device: identifier, remote });
      }
      // Traccar answers an unknown id with 400 in the query form and 404 in the JSON form.
      return refuse(reply, parse.form === 'json' ? 404 : 400, access.code, access.message, {
        device: identifier,
        remote,
      });
    }
    if (!parse.ok) {
      return refuse(reply, 400, parse.code, parse.message, { device: identifier, remote });
    }

    const records = parse.positions.map((p) => toDecoded(identifier, p, access.profile, Date.now()));
    let outcome: Awaited<ReturnType<typeof ctx.sink.store>>;
    try {
      outcome = await ctx.sink.store(CHANNEL, access.device, records);
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
