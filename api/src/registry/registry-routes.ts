import { type Bus, principalOf, publishOrLog, type TokenResolver, withQuery } from '@vigia/core';
import type { Database } from '@vigia/db';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { readers, writers } from './access.js';
import { type CollectionSpec, CollectionStore, listQuerySchemaOf, type Row } from './collection.js';
import {
  contractsSpec,
  devicesSpec,
  driversSpec,
  holidaysSpec,
  operatorsSpec,
  standsSpec,
  stopsSpec,
  unitValuesSpec,
  usersSpec,
  vehiclesSpec,
  zonesSpec,
} from './collections.js';
import type { ImportLimits } from './import-limits.js';
import { registerImportRoutes } from './import-routes.js';
import { liveJoin, withLive } from './vehicle-live.js';

export interface RegistryDeps {
  db: Database;
  bus: Bus;
  resolveToken: TokenResolver;
  offlineAfterS: number;
  /** Bounds of the import routes (zip, CSV, GeoJSON bodies). */
  importLimits: ImportLimits;
}

interface Hooks {
  extra?: { select: string; join: string };
  present?(row: Row): Row;
  /** After a create, patch, retire or token rotation (committed): never rejects, like `publishOrLog`. */
  changed?(rows: Row[], req: FastifyRequest): Promise<void>;
}

function registerCollection<S extends z.ZodObject>(
  app: FastifyInstance,
  store: CollectionStore<S>,
  deps: RegistryDeps,
  hooks: Hooks = {},
): void {
  const base = `/v1/${store.spec.name}`;
  const present = hooks.present ?? ((r: Row) => r);
  // Every change reaches the rule engines (they judge against the registry); some collections add
  // more. Announced once committed, and the answer does not depend on it: a write answered 500
  // after it was stored would be retried and duplicated. A process that misses the message
  // reloads when its bus resumes.
  const changed = async (rows: Row[], req: FastifyRequest) => {
    await hooks.changed?.(rows, req);
    await publishOrLog(
      deps.bus,
      req.log,
      { type: 'registry-changed', collection: store.spec.name },
      'registry change not published',
      { collection: store.spec.name },
    );
  };
  const idParam = (params: unknown) => (params as { id: string }).id;
  const read = { config: { access: readers(store.spec.access) } };
  const write = { config: { access: writers(store.spec.access) } };

  const listQuery = listQuerySchemaOf(store.spec);
  app.get(base, withQuery(read, listQuery), async (req) => {
    const principal = principalOf(req);
    const { page, filters } = listQuery.parse(req.query);
    const { items, next } = await store.list(principal, filters, page, hooks.extra);
    return { items: items.map(present), next };
  });

  app.get(`${base}/:id`, read, async (req) => {
    const principal = principalOf(req);
    return present(await store.get(principal, idParam(req.params), hooks.extra));
  });

  app.post(base, write, async (req, reply) => {
    const principal = principalOf(req);
    const { rows, tokens } = await store.create(principal, req.body);
    await changed(rows, req);
    const out = rows.map((row, i) => (tokens[i] ? { ...present(row), token: tokens[i] } : present(row)));
    return reply.code(201).send(Array.isArray(req.body) ? out : out[0]);
  });

  app.patch(`${base}/:id`, write, async (req) => {
    const principal = principalOf(req);
    const { before, after } = await store.patch(principal, idParam(req.params), req.body);
    await changed([before, after], req);
    return present(after);
  });

  app.delete(`${base}/:id`, write, async (req) => {
    const principal = principalOf(req);
    const row = await store.retire(principal, idParam(req.params));
    await changed([row], req);
    return present(row);
  });

  if (store.spec.token) {
    app.post(`${base}/:id/token`, write, async (req) => {
      const principal = principalOf(req);
      const { row, token } = await store.rotateToken(principal, idParam(req.params));
      await changed([row], req);
      return { ...present(row), token };
    });
  }
}

export async function registerRegistryRoutes(app: FastifyInstance, deps: RegistryDeps): Promise<void> {
  const store = <S extends z.ZodObject>(spec: CollectionSpec<S>) => new CollectionStore(spec, deps.db);
  const vehicles = store(vehiclesSpec);
  const presentVehicle = (row: Row) => withLive(row, deps.offlineAfterS);

  registerCollection(app, store(operatorsSpec), deps);
  registerCollection(app, vehicles, deps, { extra: liveJoin, present: presentVehicle });
  registerCollection(app, store(driversSpec), deps);
  registerCollection(app, store(usersSpec), deps);
  // Ingest caches devices by identifier: every change is announced so no process keeps a stale one.
  registerCollection(app, store(devicesSpec), deps, {
    async changed(rows, req) {
      const identifiers = [...new Set(rows.map((r) => r.identifier).filter((i): i is string => typeof i === 'string'))];
      await publishOrLog(deps.bus, req.log, { type: 'device-changed', identifiers }, 'device change not published', {
        identifiers,
      });
    },
  });

  const stops = store(stopsSpec);
  const stands = store(standsSpec);
  const zones = store(zonesSpec);
  registerCollection(app, stops, deps);
  registerCollection(app, stands, deps);
  registerCollection(app, zones, deps);
  registerCollection(app, store(contractsSpec), deps);
  registerCollection(app, store(holidaysSpec), deps);
  registerCollection(app, store(unitValuesSpec), deps);

  registerImportRoutes(app, {
    bus: deps.bus,
    limits: deps.importLimits,
    stops,
    stands,
    zones,
    vehicles,
    presentVehicle,
  });
}
