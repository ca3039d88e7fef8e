import { AppError, type Caller, type Principal, principalOf, withQuery } from '@vigia/core';
import type { Queryable } from '@vigia/db';
import type { FastifyInstance } from 'fastify';
import { readers, requireRead } from '../registry/access.js';
import { vehiclesSpec } from '../registry/collections.js';
import {
  REPLAY_MAX_BBOX_DEG,
  REPLAY_MAX_MS,
  replayQuerySchema,
  TRACK_DEFAULT_MS,
  TRACK_MAX_MS,
  trackQuerySchema,
  vehicleIdSchema,
} from './history-query.js';
import { HistoryStore, type VehicleScope } from './history-store.js';
import { type GapPolicy, trackFeatures } from './track-lines.js';

/** Whoever reads the vehicles reads their history, within the same scope (README.md "Scope"). */
const access = { config: { access: readers(vehiclesSpec.access) as Caller[] } };

function scopeOf(principal: Principal): VehicleScope {
  const scope = requireRead(principal, vehiclesSpec.access);
  if (scope.all) return scope;
  const declared = principal.kind === 'user' && principal.role === 'dispatcher';
  return { all: false, operatorIds: scope.operatorIds, declared };
}

/** [from, to) of a request, checked before anything is read: from before to, at most `maxMs` long. */
function period(from: string, to: string, maxMs: number, what: string): { from: Date; to: Date } {
  const f = new Date(from);
  const t = new Date(to);
  if (!(f < t)) throw new AppError('INVALID_RANGE', '`from` must be before `to`', 400);
  if (t.getTime() - f.getTime() > maxMs) {
    throw new AppError('RANGE_TOO_LARGE', `${what} covers at most ${maxMs / 60_000} minutes per call`, 400, {
      maxMinutes: maxMs / 60_000,
    });
  }
  return { from: f, to: t };
}

/**
 * History (api/src/history/README.md): `GET /v1/vehicles/:id/track` (API.md "History") and the
 * area replay `GET /v1/replay`.
 */
export async function registerHistoryRoutes(
  app: FastifyInstance,
  deps: { db: Queryable; gaps: GapPolicy },
): Promise<void> {
  const store = new HistoryStore(deps.db);

  app.get('/v1/vehicles/:id/track', withQuery(access, trackQuerySchema), async (req) => {
    const principal = principalOf(req);
    const id = vehicleIdSchema.parse((req.params as { id: string }).id);
    const query = trackQuerySchema.parse(req.query);
    const to = query.to ?? new Date().toISOString();
    const from = query.from ?? new Date(new Date(to).getTime() - TRACK_DEFAULT_MS).toISOString();
    const range = period(from, to, TRACK_MAX_MS, 'A track');
    const vehicle = await store.vehicle(id, scopeOf(principal));
    if (!vehicle) throw new AppError('NOT_FOUND', `No vehicles record '${id}'`, 404);
    const [samples, violations, hours] = await Promise.all([
      store.samples(id, range.from, range.to),
      store.violations(id, range.from, range.to),
      store.hours(id, range.from, range.to),
    ]);
    return {
      type: 'FeatureCollection',
      vehicle: { id: vehicle.id, plate: vehicle.plate, pack: vehicle.pack, operatorId: vehicle.operatorId },
      from: range.from.toISOString(),
      to: range.to.toISOString(),
      stepS: query.stepS ?? null,
      samples: samples.length,
      features: trackFeatures(samples, deps.gaps, query.stepS ? query.stepS * 1000 : undefined),
      violations,
      hours: hours ?? null,
    };
  });

  app.get('/v1/replay', withQuery(access, replayQuerySchema), async (req) => {
    const principal = principalOf(req);
    const query = replayQuerySchema.parse(req.query);
    const range = period(query.from, query.to, REPLAY_MAX_MS, 'A replay');
    const [minLon, minLat, maxLon, maxLat] = query.bbox;
    if (maxLon - minLon > REPLAY_MAX_BBOX_DEG || maxLat - minLat > REPLAY_MAX_BBOX_DEG) {
      throw new AppError('AREA_TOO_LARGE', `A replay covers at most ${REPLAY_MAX_BBOX_DEG}° each way`, 400, {
        maxDegrees: REPLAY_MAX_BBOX_DEG,
      });
    }
    const vehicles = await store.replayVehicles(scopeOf(principal), query.pack, query.bbox, range.from, range.to);
    const rows =
      vehicles.length > 0
        ? await store.replaySamples(
            vehicles.map((v) => v.id),
            query.bbox,
            range.from,
            range.to,
            query.stepS,
          )
        : [];
    const tracks = new Map(
      vehicles.map((v) => [
        v.id,
        {
          id: v.id,
          plate: v.plate,
          pack: v.pack,
          t: [] as number[],
          lat: [] as number[],
          lon: [] as number[],
          meterState: [] as (string | null)[],
        },
      ]),
    );
    for (const row of rows) {
      const track = tracks.get(row.vehicleId);
      if (!track) continue;
      track.t.push(row.t);
      track.lat.push(row.lat);
      track.lon.push(row.lon);
      track.meterState.push(row.meterState);
    }
    return {
      from: range.from.toISOString(),
      to: range.to.toISOString(),
      bbox: query.bbox,
      stepS: query.stepS,
      vehicles: [...tracks.values()],
    };
  });
}
