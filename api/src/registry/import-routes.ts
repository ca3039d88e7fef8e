import { AppError, type Bus, principalOf, publishOrLog } from '@vigia/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { writers } from './access.js';
import type { CollectionStore, Row } from './collection.js';
import type { ImportLimits } from './import-limits.js';
import { ImportSlots } from './import-slots.js';
import { recordsFromFeatures, stopsFromGtfs, stopsTxtFromZip } from './imports.js';
import { ImportUpload } from './request-body.js';
import { vehiclesFromCsv } from './vehicle-csv.js';

export interface ImportDeps {
  bus: Bus;
  limits: ImportLimits;
  stops: CollectionStore<z.ZodObject>;
  stands: CollectionStore<z.ZodObject>;
  zones: CollectionStore<z.ZodObject>;
  vehicles: CollectionStore<z.ZodObject>;
  presentVehicle(row: Row): Row;
}

/**
 * The import routes, in their own Fastify context so that their body parsers apply to them
 * only. A zip or CSV body is not buffered: the parser hands over the request stream
 * (`ImportUpload`) and the importer reads it within `ImportLimits`, at most
 * `IMPORT_MAX_CONCURRENT` imports at a time. Who may import is checked
 * before (`config.access`, in `onRequest`), so a refused caller's body is never read.
 */
export function registerImportRoutes(app: FastifyInstance, deps: ImportDeps): void {
  // Not awaited: awaiting a registration here would load the plugins queued before it ahead of
  // the server's start, and start-up stalls; it loads with the others on `listen`.
  app.register(async (scope) => {
    const { limits } = deps;
    const slots = new ImportSlots(limits.maxConcurrent);
    const guarded =
      <T>(handler: (req: FastifyRequest, reply: FastifyReply) => Promise<T>) =>
      (req: FastifyRequest, reply: FastifyReply) =>
        slots.run(() => handler(req, reply));
    scope.addContentTypeParser(['application/zip', 'application/x-zip-compressed'], (req, payload, done) =>
      done(null, new ImportUpload('zip', payload, req.headers['content-length'], limits)),
    );
    scope.addContentTypeParser('text/csv', (req, payload, done) =>
      done(null, new ImportUpload('csv', payload, req.headers['content-length'], limits)),
    );
    // An import past a limit is rare from a legitimate caller: worth a line naming who and which limit.
    scope.addHook('onError', async (req, _reply, err) => {
      const code = err instanceof AppError ? err.code : (err as { code?: string }).code;
      if (code !== 'IMPORT_TOO_LARGE' && code !== 'FST_ERR_CTP_BODY_TOO_LARGE') return;
      const by = req.principal?.kind === 'user' ? req.principal.userId : req.principal?.kind;
      req.log.warn(
        { code: 'IMPORT_TOO_LARGE', url: req.url, by, reason: err.message },
        'import refused: a limit was passed',
      );
    });

    // GTFS stops.txt (text/csv) or a whole GTFS zip; `?source=` names the feed (default `gtfs`).
    scope.post(
      '/v1/stops/import',
      { config: { access: writers(deps.stops.spec.access) } },
      guarded(async (req, reply) => {
        const principal = principalOf(req);
        const source = String((req.query as { source?: unknown }).source ?? 'gtfs').slice(0, 64);
        const upload = uploadOf(req.body, 'Send stops.txt as text/csv or a GTFS zip as application/zip');
        try {
          const text = upload.format === 'zip' ? stopsTxtFromZip(upload.chunks(), limits) : upload.chunks();
          const { records, lines, skipped } = await stopsFromGtfs(text, source, limits);
          const rows = await withLines(() => deps.stops.upsert(principal, records), lines);
          await announce(deps, req, 'stops');
          return reply.code(201).send({ imported: rows.length, skipped });
        } finally {
          upload.discardRest();
        }
      }),
    );

    // GeoJSON FeatureCollections; `?pack=` fills the pack of features that do not say it. JSON is
    // parsed whole, so its own, smaller limit.
    for (const target of [deps.stands, deps.zones]) {
      scope.post(
        `/v1/${target.spec.name}/import`,
        { bodyLimit: limits.maxGeoJsonBytes, config: { access: writers(target.spec.access) } },
        guarded(async (req, reply) => {
          const principal = principalOf(req);
          if (req.body instanceof ImportUpload) {
            req.body.discardRest();
            throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Send a GeoJSON FeatureCollection as application/json', 415);
          }
          const pack = (req.query as { pack?: unknown }).pack;
          const records = recordsFromFeatures(req.body, typeof pack === 'string' ? { pack } : {}, limits);
          const rows = await target.upsert(principal, records);
          await announce(deps, req, target.spec.name);
          return reply.code(201).send({ imported: rows.length, items: rows });
        }),
      );
    }

    scope.post(
      '/v1/vehicles/import',
      { config: { access: writers(deps.vehicles.spec.access) } },
      guarded(async (req, reply) => {
        const principal = principalOf(req);
        const upload = uploadOf(req.body, 'Send the vehicles as Content-Type: text/csv');
        if (upload.format !== 'csv') {
          upload.discardRest();
          throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Send the vehicles as Content-Type: text/csv', 415);
        }
        try {
          const records = await vehiclesFromCsv(upload.chunks(), limits);
          const { rows } = await withLines(
            () => deps.vehicles.create(principal, records),
            records.map((_, i) => i + 2),
          );
          await announce(deps, req, 'vehicles');
          return reply.code(201).send({ imported: rows.length, items: rows.map(deps.presentVehicle) });
        } finally {
          upload.discardRest();
        }
      }),
    );
  });
}

/** The import is stored: its answer does not depend on the bus (registry-routes.ts). */
function announce(deps: ImportDeps, req: FastifyRequest, collection: string): Promise<void> {
  return publishOrLog(deps.bus, req.log, { type: 'registry-changed', collection }, 'registry change not published', {
    collection,
  });
}

function uploadOf(body: unknown, expected: string): ImportUpload {
  if (body instanceof ImportUpload) return body;
  throw new AppError('UNSUPPORTED_MEDIA_TYPE', expected, 415);
}

/** Points validation errors of an import at file lines rather than array indexes. */
async function withLines<T>(run: () => Promise<T>, lines: number[]): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof AppError && Array.isArray(err.details)) {
      const details = (err.details as { index: number }[]).map((d) => ({ ...d, line: lines[d.index] }));
      throw new AppError(err.code, err.message, err.statusCode, details);
    }
    throw err;
  }
}
