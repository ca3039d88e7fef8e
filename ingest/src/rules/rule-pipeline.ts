import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { type Bus, type Pack, publishOrLog, type Telemetry } from '@vigia/core';
import type { Database, Queryable } from '@vigia/db';
import {
  CheckpointError,
  checkpointEngine,
  createRuleEngine,
  type DispatchRecordInput,
  type PriorViolation,
  type RuleEngine,
  restoreEngine,
  type StandQueueChange,
  type ViolationEvent,
} from '@vigia/rules';
import type { Logger } from 'pino';
import { upsertViolations, type ViolationUpsert } from '../violations/violation-writer.js';
import { CheckpointPacer } from './checkpoint-pacer.js';
import { loadRegistry } from './registry-loader.js';
import { loadRulesConfig } from './rules-config.js';
import { STORE_STAND_QUEUES_SQL } from './stand-queue-sql.js';

/** The widest recidivism window of any pack (DF Art. 53: 2 years), with a margin. */
const PRIOR_WINDOW_DAYS = 800;
/** At most one reload this often for samples of vehicles the registry has no record of. */
const UNKNOWN_VEHICLE_RELOAD_MS = 1000;

/**
 * The live rules: every stored sample goes through the rule engine, in the order it was
 * stored; the events the engine raises are priced with their recidivism (from the violations
 * already stored), upserted by event key, and pushed on the bus. Work is serialised: one batch
 * at a time, so a vehicle's samples reach the engine in order and its events are written in
 * order. The registry is reloaded when it changes.
 *
 * Each vehicle's state lives in the process that stores its samples: with several ingest
 * processes, a vehicle's device must keep talking to one of them (a TCP connection does; HTTP
 * needs the load balancer to hash on the device). Documented in the README.
 */
export class RulePipeline {
  private engine: RuleEngine | undefined;
  private knownVehicles = new Set<string>();
  private registryDirty = false;
  private lastReloadMs = 0;
  private queue: (() => Promise<void>)[] = [];
  private running: Promise<void> | undefined;
  private reloadTimer: NodeJS.Timeout | undefined;
  /** Stand queues the engine reported changed and not yet stored (kept across a failed write). */
  private readonly unsavedQueues = new Map<string, StandQueueChange>();
  private readonly flushTimer: NodeJS.Timeout;
  private checkpointTimer: NodeJS.Timeout | undefined;
  private pacer: CheckpointPacer | undefined;
  private closed = false;
  /** Samples were judged since the state file was last written (a quiet fleet costs no writes). */
  private unsaved = false;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly deps: {
      db: Database;
      bus: Bus;
      log: Logger;
      /** Where the packs' settings come from (RULES_CONFIG_FILE); none = the defaults. */
      configFile?: string | undefined;
      packOf: (vehicleId: string) => Pack | undefined;
      /** Told how long the engine took per judged batch (`IngestMetrics`). */
      metrics?: { rulesEvaluated(samples: number, seconds: number): void };
      /**
       * Where the engine's state is saved (RULES_STATE_FILE): restored on start, saved every
       * checkpoint (`checkpoints`) and on close, so a restart continues open runs. None: not kept.
       */
      stateFile?: string | undefined;
      /** When the state file is written (`checkpoint-pacer.ts`); needed with `stateFile`. */
      checkpoints?: { intervalMs: number; maxCostShare: number };
      /** How the registry is read; a rule worker shares one read among its partitions' pipelines. */
      loadRegistry?: () => ReturnType<typeof loadRegistry>;
      /** How often silent vehicles' events are finished (RULES_FLUSH_INTERVAL_MS); default 30 s. */
      flushIntervalMs?: number | undefined;
    },
  ) {
    this.unsubscribe = deps.bus.subscribe((m) => {
      // After a bus outage a registry change may have been lost: reload as if one had been announced.
      if (m.type === 'registry-changed' || m.type === 'bus-resumed') this.scheduleReload();
    });
    // Vehicles that fall silent still have their events finished (e.g. a trip that ends with the
    // device off). Only provisionally: the rules judge in event time (rules/README.md), so a
    // tracker that uploads its backlog later resumes its events under the same keys, and the
    // server's clock moves no stand decision.
    this.flushTimer = setInterval(
      () =>
        this.enqueue(async () => {
          const flushed = this.engine?.flush(Date.now()) ?? [];
          if (flushed.length > 0) this.unsaved = true;
          await this.persist(flushed);
          await this.persistStandQueues();
        }),
      deps.flushIntervalMs ?? 30_000,
    );
    this.flushTimer.unref();
    if (deps.stateFile && deps.checkpoints) {
      this.pacer = new CheckpointPacer(deps.checkpoints.intervalMs, deps.checkpoints.maxCostShare, Date.now());
      this.scheduleSave();
    }
  }

  /** Loads the registry and the packs; `checkpoint`: resume from it (a rule worker taking over a partition). */
  async start(checkpoint?: Uint8Array): Promise<void> {
    const { registry, vehicleIds } = await this.readRegistry();
    this.knownVehicles = vehicleIds;
    this.lastReloadMs = Date.now();
    const packs = await loadRulesConfig(this.deps.configFile);
    this.engine = createRuleEngine({ registry, ...(packs ? { packs } : {}) });
    if (checkpoint) {
      const restored = restoreEngine(this.engine, checkpoint);
      this.deps.log.debug({ ...restored, bytes: checkpoint.length }, 'rule state restored from a checkpoint');
    } else await this.restoreState(this.engine);
  }

  private readRegistry(): ReturnType<typeof loadRegistry> {
    return this.deps.loadRegistry ? this.deps.loadRegistry() : loadRegistry(this.deps.db, this.deps.log);
  }

  /**
   * The engine's state once everything queued so far is judged and stored (a partition's
   * checkpoint), and how long serialising it took (ms).
   */
  checkpoint(): Promise<{ state: Buffer; costMs: number }> {
    return new Promise((resolve, reject) => {
      void this.enqueue(async () => {
        if (!this.engine) reject(new Error('rule pipeline not started'));
        else resolve(timedCheckpoint(this.engine));
      });
    });
  }

  /** The state file's next write, when the pacer says it is due. */
  private scheduleSave(): void {
    const pacer = this.pacer;
    if (!pacer || this.closed) return;
    this.checkpointTimer = setTimeout(() => {
      void this.enqueue(() => this.saveState()).finally(() => this.scheduleSave());
    }, pacer.delayMs(Date.now()));
    this.checkpointTimer.unref();
  }

  /** The state a previous run saved (RULES_STATE_FILE), if any; a refused file is set aside, not fatal. */
  private async restoreState(engine: RuleEngine): Promise<void> {
    const file = this.deps.stateFile;
    if (!file) return;
    let bytes: Buffer;
    try {
      bytes = await readFile(file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    try {
      const restored = restoreEngine(engine, bytes);
      this.deps.log.info({ file, ...restored, bytes: bytes.length }, 'rule state restored');
    } catch (err) {
      if (!(err instanceof CheckpointError)) throw err;
      await rename(file, `${file}.refused`);
      this.deps.log.warn({ err, code: err.code, file }, 'rule state refused, starting without it');
    }
  }

  /** Writes the engine's state beside, then over, the state file: a crash mid-write leaves the previous one. */
  private async saveState(): Promise<void> {
    const file = this.deps.stateFile;
    if (!file || !this.engine || !this.unsaved) {
      // Nothing new to save: look again an interval later.
      this.pacer?.done(Date.now(), 0);
      return;
    }
    // Cleared first: samples judged while the file is written make the next save due.
    this.unsaved = false;
    const startedMs = Date.now();
    const { state: bytes, costMs } = timedCheckpoint(this.engine);
    this.pacer?.done(startedMs, costMs);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(`${file}.tmp`, bytes);
    await rename(`${file}.tmp`, file);
  }

  private async reload(): Promise<void> {
    this.registryDirty = false;
    this.lastReloadMs = Date.now();
    const { registry, vehicleIds } = await this.readRegistry();
    this.knownVehicles = vehicleIds;
    this.engine?.setRegistry(registry);
  }

  private scheduleReload(): void {
    this.registryDirty = true;
    if (this.reloadTimer) return;
    // Imports change thousands of records at once: one reload for the burst.
    this.reloadTimer = setTimeout(() => {
      this.reloadTimer = undefined;
      this.enqueue(async () => {
        if (this.registryDirty) await this.reload();
      });
    }, 300);
  }

  /**
   * The registry must be current before samples are judged: a device may send the moment it is
   * registered, before the change has reached this process over the bus. A sample of a vehicle
   * the registry has never seen (its device exists, so the vehicle does) means the registry is
   * behind: reload first, rather than call the vehicle unregistered.
   */
  private async ensureCurrentRegistry(samples: readonly Telemetry[]): Promise<void> {
    // A registry read after a sample was received holds its vehicle if the vehicle has any
    // history at all (history is written in the same transaction as the record).
    const newestUnknown = Math.max(
      0,
      ...samples.filter((s) => !this.knownVehicles.has(s.vehicleId)).map((s) => s.receivedAt.getTime()),
    );
    const stale = newestUnknown >= this.lastReloadMs && Date.now() - this.lastReloadMs >= UNKNOWN_VEHICLE_RELOAD_MS;
    if (this.registryDirty || stale) await this.reload();
  }

  /** Samples just committed (in the order they were stored). */
  onStored(samples: readonly Telemetry[]): void {
    this.enqueue(async () => {
      if (!this.engine) return;
      await this.ensureCurrentRegistry(samples);
      const engine = this.engine;
      const events: ViolationEvent[] = [];
      this.unsaved = true;
      // Timed once per batch, the engine alone: two clock reads however many samples.
      const started = performance.now();
      for (const s of samples) {
        const pack = this.deps.packOf(s.vehicleId);
        events.push(...engine.ingest(s, pack ? { pack } : {}));
      }
      this.deps.metrics?.rulesEvaluated(samples.length, (performance.now() - started) / 1000);
      await this.persist(events);
      await this.persistStandQueues();
    });
  }

  onDispatches(records: readonly DispatchRecordInput[]): Promise<void> {
    return this.enqueue(async () => {
      const engine = this.engine;
      if (!engine) return;
      await this.persist(records.flatMap((r) => engine.ingestDispatch(r)));
    });
  }

  private enqueue(job: () => Promise<void>): Promise<void> {
    return new Promise((resolve) => {
      this.queue.push(async () => {
        try {
          await job();
        } catch (err) {
          this.deps.log.error({ err, code: 'RULE_PIPELINE_FAILED' }, 'rule evaluation failed');
        } finally {
          resolve();
        }
      });
      this.running ??= this.drain();
    });
  }

  private async drain(): Promise<void> {
    for (let job = this.queue.shift(); job; job = this.queue.shift()) await job();
    this.running = undefined;
  }

  /** Prices the events with their recidivism, stores them, withdraws cleared alerts, pushes them live. */
  private async persist(events: readonly ViolationEvent[]): Promise<void> {
    const engine = this.engine;
    if (!engine || events.length === 0) return;
    const upserts = events.filter((e) => e.type !== 'withdrawn');
    const withdrawn = events.filter((e) => e.type === 'withdrawn');
    const live = await this.deps.db.transaction(async (tx) => {
      const priors = await priorViolations(tx, upserts);
      const matriculas = await currentMatriculas(tx, upserts);
      const rows: ViolationUpsert[] = upserts.map(({ violation: v }) => {
        const others = priors.filter((p) => p.key !== v.key);
        const recidivism = engine.assessRecidivism(
          {
            key: v.key,
            ruleId: v.ruleId,
            pack: v.pack,
            startedAt: v.startedAt,
            vehicleId: v.vehicleId,
            operatorId: v.operatorId,
            permitNumber: v.permitNumber,
            penalty: { group: v.penalty.group, amountBrl: v.penalty.amountBrl, item: v.penalty.item },
            matricula: matriculas.get(matriculaKey(v)) ?? null,
          },
          others,
        );
        return {
          eventKey: v.key,
          ruleId: v.ruleId,
          pack: v.pack,
          legalBasis: [...v.legalBasis],
          description: v.description.pt,
          descriptionEn: v.description.en,
          vehicleId: v.vehicleId,
          plate: v.plate,
          operatorId: v.operatorId,
          permitNumber: v.permitNumber,
          driverId: v.driverId,
          variant: v.variant,
          phase: v.phase,
          startedAt: v.startedAt,
          endedAt: v.endedAt,
          lat: v.lat,
          lon: v.lon,
          place: v.place,
          confidence: v.confidence,
          measured: { ...v.measured },
          penalty: {
            ...v.penalty,
            baseAmountBrl: v.penalty.amountBrl,
            amountBrl: recidivism.amountBrl,
            escalation: recidivism.escalation,
          },
          recidivism: { ...recidivism },
          evidenceFrom: v.evidence.from,
          evidenceTo: v.evidence.to,
        };
      });
      const stored = await upsertViolations(tx, rows);
      for (const { violation, reason } of withdrawn) {
        // A provisional alert the rule cleared (e.g. the Bandeira II trip ended at the airport).
        await tx.query(
          `WITH w AS (UPDATE violations SET status = 'dismissed', phase = 'final', updated_at = now()
                      WHERE event_key = $1 AND status = 'open' RETURNING id)
           INSERT INTO violation_reviews (violation_id, decision, reason, reviewer, from_status, to_status)
           SELECT id, 'dismiss', $2, 'rule-engine', 'open', 'dismissed' FROM w`,
          [violation.key, reason ?? 'cleared by the rule'],
        );
      }
      return stored;
    });
    if (live.length > 0) {
      await publishOrLog(
        this.deps.bus,
        this.deps.log,
        { type: 'violation', violations: live },
        'violations not pushed live',
      );
    }
  }

  /**
   * The stand queues that changed in this batch, as the rules now see them, into `stand_queues`
   * in one statement (dispatch reads them there: api/src/dispatch/stand-queues.ts), recording the
   * taxis that left a queue as stand visits (stand-queue-sql.ts). A queue of a
   * stand the table does not hold is skipped; a failed write is retried with the next batch.
   */
  private async persistStandQueues(): Promise<void> {
    for (const c of this.engine?.standQueueChanges() ?? []) this.unsavedQueues.set(c.standId, c);
    if (this.unsavedQueues.size === 0) return;
    const rows = [...this.unsavedQueues.values()].map((c) => ({
      stand_id: c.standId,
      pack: c.pack,
      items: c.items.map((i) => ({ vehicleId: i.vehicleId, enteredAt: new Date(i.enteredMs).toISOString() })),
      as_of: new Date(c.asOfMs).toISOString(),
    }));
    try {
      await this.deps.db.query(STORE_STAND_QUEUES_SQL, [JSON.stringify(rows)]);
    } catch (err) {
      this.deps.log.warn({ err, code: 'STAND_QUEUES_WRITE_FAILED', stands: rows.length }, 'stand queues not stored');
      return;
    }
    this.unsavedQueues.clear();
  }

  /** Waits until everything queued so far is judged and stored. */
  async idle(): Promise<void> {
    await this.enqueue(async () => {});
  }

  async close(): Promise<void> {
    clearInterval(this.flushTimer);
    this.closed = true;
    clearTimeout(this.checkpointTimer);
    if (this.reloadTimer) clearTimeout(this.reloadTimer);
    this.unsubscribe();
    // Open runs are not finished on shutdown: their state is saved, and the next start resumes them.
    await this.enqueue(() => this.saveState());
  }
}

/**
 * DF Art. 53: the driver whose *matrícula* an infraction counts against — the driver the
 * telemetry identified, when registered on the vehicle's permit and not its holder (the holder's
 * driver record carries the operator's document); null: the permit. Read from the registry as it
 * is now (the tables), the same SQL for the priors and for the violations being assessed.
 */
const MATRICULA_SQL = (v: string) => `CASE WHEN ${v}.driver_id IS NOT NULL
         AND EXISTS (SELECT 1 FROM vehicles veh WHERE veh.id = ${v}.vehicle_id AND ${v}.driver_id = ANY(veh.driver_ids))
         AND NOT EXISTS (SELECT 1 FROM drivers d JOIN operators o ON o.id = ${v}.operator_id
                         WHERE d.id = ${v}.driver_id
                           AND nullif(regexp_replace(d.document, '\\D', '', 'g'), '') = regexp_replace(o.document, '\\D', '', 'g'))
       THEN ${v}.driver_id END`;

const matriculaKey = (v: { vehicleId: string; driverId: string | null; operatorId: string | null }): string =>
  `${v.vehicleId}|${v.driverId ?? ''}|${v.operatorId ?? ''}`;

async function currentMatriculas(
  tx: Queryable,
  events: readonly ViolationEvent[],
): Promise<Map<string, string | null>> {
  const withDriver = events.map((e) => e.violation).filter((v) => v.driverId !== null);
  if (withDriver.length === 0) return new Map();
  const { rows } = await tx.query<{
    vehicle_id: string;
    driver_id: string;
    operator_id: string | null;
    matricula: string | null;
  }>(
    `SELECT c.vehicle_id, c.driver_id, c.operator_id, ${MATRICULA_SQL('c')} AS matricula
     FROM unnest($1::text[], $2::text[], $3::text[]) AS c(vehicle_id, driver_id, operator_id)`,
    [withDriver.map((v) => v.vehicleId), withDriver.map((v) => v.driverId), withDriver.map((v) => v.operatorId)],
  );
  return new Map(
    rows.map((r) => [
      matriculaKey({ vehicleId: r.vehicle_id, driverId: r.driver_id, operatorId: r.operator_id }),
      r.matricula,
    ]),
  );
}

/** Earlier violations of the same operators, vehicles or permits, for recidivism. */
async function priorViolations(tx: Queryable, events: readonly ViolationEvent[]): Promise<PriorViolation[]> {
  if (events.length === 0) return [];
  const operators = [...new Set(events.map((e) => e.violation.operatorId).filter((x): x is string => x !== null))];
  const vehicles = [...new Set(events.map((e) => e.violation.vehicleId))];
  const permits = [...new Set(events.map((e) => e.violation.permitNumber).filter((x): x is string => x !== null))];
  const { rows } = await tx.query<{
    event_key: string;
    rule_id: PriorViolation['ruleId'];
    pack: Pack;
    grp: string | null;
    started_at: Date;
    vehicle_id: string;
    operator_id: string | null;
    permit_number: string | null;
    status: PriorViolation['status'];
    item: string | null;
    matricula: string | null;
  }>(
    `SELECT v.event_key, v.rule_id, v.pack, v.penalty->>'group' AS grp, v.started_at, v.vehicle_id, v.operator_id,
       v.permit_number, v.status, v.penalty->>'item' AS item, ${MATRICULA_SQL('v')} AS matricula
     FROM violations v
     WHERE v.started_at > now() - make_interval(days => $4::int)
       AND (v.operator_id = ANY($1::text[]) OR v.vehicle_id = ANY($2::text[]) OR v.permit_number = ANY($3::text[]))`,
    [operators, vehicles, permits, PRIOR_WINDOW_DAYS],
  );
  return rows.map((r) => ({
    key: r.event_key,
    ruleId: r.rule_id,
    pack: r.pack,
    group: r.grp,
    occurredAt: new Date(r.started_at),
    vehicleId: r.vehicle_id,
    operatorId: r.operator_id,
    permitNumber: r.permit_number,
    status: r.status,
    item: r.item,
    matricula: r.matricula,
  }));
}

/** The engine's checkpoint and the wall time its synchronous serialisation took (`CheckpointPacer`). */
function timedCheckpoint(engine: RuleEngine): { state: Buffer; costMs: number } {
  const started = performance.now();
  const state = checkpointEngine(engine);
  return { state, costMs: performance.now() - started };
}
