import {
  AppError,
  type Principal,
  principalOf,
  type TimestampBounds,
  type TokenResolver,
  timestampProblem,
} from '@vigia/core';
import type { Database } from '@vigia/db';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { DispatchStore, type DispatchVehicle, dispatchRow, type Dispatch as StoredDispatch } from './dispatch-store.js';
import type { RulePipeline } from './rules/rule-pipeline.js';

/**
 * `POST /v1/dispatches`: radio-taxi dispatch systems report which radio operator sent which
 * taxi to a ride (Belém Art. 42–44). Stored, then judged by BEL_UNAUTHORIZED_RADIO, whose
 * finding is charged to the vehicle. So a dispatch is accepted only for a registered Belém taxi,
 * and a dispatcher's token only for its own radio operators and for vehicles within their scope
 * (declared by one of them, Art. 44 I, or registered to one of them): otherwise any dispatcher
 * could raise confirmed violations against another cooperative's taxis (issue 8, finding 4).
 */

/** Dispatch is a Belém concept (its radio articles); other packs' vehicles are never dispatched here. */
export const DISPATCH_PACK = 'belem-taxi';

/**
 * The time window of a dispatch when the caller does not give one: telemetry's defaults
 * (INGEST_MAX_FUTURE_SKEW_S, INGEST_MAX_PAST_AGE_S). Late uploads of weeks are normal (a dispatch
 * system catching up, scenarios replaying last month); a clock reset to 1970 is not.
 */
const DEFAULT_BOUNDS: TimestampBounds = { maxFutureSkewS: 300, maxPastAgeS: 400 * 86_400 };

/** No control characters: they are not part of any id, and PostgreSQL refuses a NUL (a 5xx otherwise). */
const text = (max: number) =>
  z
    .string()
    .trim()
    .max(max)
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
    .regex(/^[^\u0000-\u001f\u007f]*$/, 'control characters are not allowed');

const dispatchSchema = z.object({
  id: text(64).min(1).optional(),
  // An ISO instant, or epoch milliseconds within what a Date can hold (9e15 used to reach a 500).
  ts: z.union([z.iso.datetime({ offset: true }), z.number().int().min(0).max(8.64e15)]).transform((v) => new Date(v)),
  radioOperatorId: text(64).min(1),
  vehicleId: text(64).min(1),
  lat: z.number().min(-90).max(90).nullish(),
  lon: z.number().min(-180).max(180).nullish(),
  tripId: text(64).nullish(),
});
const bodySchema = z.union([dispatchSchema, z.array(dispatchSchema).min(1).max(10_000)]);
type Dispatch = z.output<typeof dispatchSchema>;

export interface DispatchRouteOptions {
  db: Database;
  rules: RulePipeline;
  resolveToken: TokenResolver;
  /** Seconds ahead of the server clock a dispatch may be stamped (INGEST_MAX_FUTURE_SKEW_S); default 300. */
  maxFutureSkewS?: number;
  /** Seconds behind it (INGEST_MAX_PAST_AGE_S; 0 = no bound); default 400 days. */
  maxPastAgeS?: number;
}

/**
 * The time window, per dispatch, by the one check every way in uses (`timestampProblem`): 400
 * with its code (FUTURE_TIMESTAMP, PAST_TIMESTAMP) naming each dispatch out of it.
 */
function checkTimes(items: Dispatch[], now: Date, opts: DispatchRouteOptions): void {
  const bounds: TimestampBounds = {
    maxFutureSkewS: opts.maxFutureSkewS ?? DEFAULT_BOUNDS.maxFutureSkewS,
    maxPastAgeS: opts.maxPastAgeS ?? DEFAULT_BOUNDS.maxPastAgeS,
  };
  const problems = items.flatMap((d, index) => {
    if (Number.isNaN(d.ts.getTime())) {
      return [{ index, path: 'ts', code: 'VALIDATION_FAILED', message: 'ts is not a valid instant' }];
    }
    const problem = timestampProblem(d.ts, now, bounds);
    return problem ? [{ index, path: 'ts', ...problem }] : [];
  });
  const first = problems[0];
  if (first) {
    throw new AppError(
      first.code,
      `Dispatch ${first.index}: ${first.message}`,
      400,
      problems.map(({ code: _, ...p }) => p),
    );
  }
}

/**
 * Who may report which dispatch. Admin: any registered Belém vehicle. Dispatcher: its own radio
 * operators, and vehicles those operators declared or own. Out of scope is 403 whether or not
 * the vehicle exists, so a dispatcher cannot learn which ids other cooperatives use.
 */
async function checkVehicles(principal: Principal, items: Dispatch[], store: DispatchStore): Promise<void> {
  const ids = items.map((d) => d.vehicleId);
  const vehicles = await store.vehicles(ids);
  if (principal.kind === 'user') {
    const operatorIds = principal.role === 'dispatcher' ? principal.operatorIds : [];
    const foreignOperator = items.find((d) => !operatorIds.includes(d.radioOperatorId));
    if (foreignOperator) {
      throw new AppError(
        'FORBIDDEN',
        `This token may not report dispatches of '${foreignOperator.radioOperatorId}'`,
        403,
      );
    }
    const declared = await store.declaredBy(operatorIds, ids);
    const inScope = (id: string, v: DispatchVehicle | undefined) =>
      declared.has(id) || (v?.operatorId != null && operatorIds.includes(v.operatorId));
    const foreign = items.find((d) => !inScope(d.vehicleId, vehicles.get(d.vehicleId)));
    if (foreign) {
      throw new AppError(
        'FORBIDDEN',
        `Vehicle '${foreign.vehicleId}' is not declared by, nor registered to, an operator of this token`,
        403,
      );
    }
  }
  const unknown = items.findIndex((d) => !vehicles.has(d.vehicleId));
  if (unknown >= 0) {
    const id = items[unknown]?.vehicleId;
    throw new AppError('UNKNOWN_VEHICLE', `No vehicle '${id}' is registered`, 400, [
      { index: unknown, path: 'vehicleId', message: `No vehicle '${id}' is registered` },
    ]);
  }
  const otherPack = items.findIndex((d) => vehicles.get(d.vehicleId)?.pack !== DISPATCH_PACK);
  if (otherPack >= 0) {
    const d = items[otherPack];
    const message = `Vehicle '${d?.vehicleId}' is a ${d ? vehicles.get(d.vehicleId)?.pack : ''} vehicle; dispatches are ${DISPATCH_PACK} only`;
    throw new AppError('VEHICLE_NOT_IN_PACK', message, 400, [{ index: otherPack, path: 'vehicleId', message }]);
  }
}

export async function registerDispatchRoutes(app: FastifyInstance, opts: DispatchRouteOptions): Promise<void> {
  const store = new DispatchStore(opts.db);
  app.post('/v1/dispatches', { config: { access: ['admin', 'dispatcher'] } }, async (req, reply) => {
    const principal = principalOf(req);
    if (principal.kind === 'device') throw new AppError('FORBIDDEN', 'Devices may not report dispatches', 403);
    const parsed = bodySchema.parse(req.body);
    const items = Array.isArray(parsed) ? parsed : [parsed];
    checkTimes(items, new Date(), opts);
    await checkVehicles(principal, items, store);
    const dispatches: StoredDispatch[] = items.map((d, i) => ({
      id: d.id ?? `dsp_${d.radioOperatorId}_${d.ts.getTime()}_${d.vehicleId}_${i}`,
      ts: d.ts,
      radioOperatorId: d.radioOperatorId,
      vehicleId: d.vehicleId,
      lat: d.lat ?? null,
      lon: d.lon ?? null,
      tripId: d.tripId ?? null,
    }));
    const rows = dispatches.map(dispatchRow);
    // A re-sent dispatch (same id, same dispatch) is stored and judged once. An id already used by
    // a different dispatch is refused: otherwise a dispatcher who learnt another cooperative's
    // dispatch ids could take them first and have that cooperative's reports dropped as duplicates.
    const stored = await store.existing(rows.map((r) => r.id));
    const taken = rows.filter((r) => {
      const s = stored.get(r.id);
      return s && (s.radio_operator_id !== r.radio_operator_id || s.vehicle_id !== r.vehicle_id || s.ts !== r.ts);
    });
    if (taken.length > 0) {
      throw new AppError(
        'DISPATCH_ID_CONFLICT',
        `The dispatch id '${taken[0]?.id}' is already used by another dispatch`,
        409,
        {
          ids: taken.map((r) => r.id),
        },
      );
    }
    const fresh = await store.insert(rows);
    const judged = dispatches.filter((d) => fresh.has(d.id));
    await opts.rules.onDispatches(judged);
    return reply.code(200).send({ accepted: judged.length, duplicates: items.length - judged.length });
  });
}
