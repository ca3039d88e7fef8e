import { AppError, type Principal } from '@vigia/core';
import type { Database } from '@vigia/db';
import type { Review, ViolationQuery } from './violation-query.js';

/**
 * Reading and reviewing violations. The rule pipeline writes them (ingest); here they are
 * listed newest first with keyset paging, opened with their evidence trace, reviewed with an
 * audit trail, and exported.
 */
export type ViolationRow = Record<string, unknown> & { id: string; startedAt: Date };

/** Violation ids per statement when reading review trails. */
const REVIEW_TRAIL_BATCH = 2000;

/** One decision of a violation's review trail. */
export interface ReviewEntry {
  decision: Review['decision'];
  reason: string;
  reviewer: string;
  reviewerName: string | null;
  fromStatus: string;
  toStatus: string;
  at: Date;
}

const SELECT = `
  v.id, v.rule_id AS "ruleId", v.pack, v.legal_basis AS "legalBasis", v.description,
  v.description_en AS "descriptionEn", v.vehicle_id AS "vehicleId", v.plate, v.operator_id AS "operatorId",
  v.driver_id AS "driverId", v.started_at AS "startedAt", v.ended_at AS "endedAt", v.detected_at AS "detectedAt",
  v.updated_at AS "updatedAt", v.lat, v.lon, v.place, v.confidence, v.measured, v.penalty, v.recidivism,
  v.status, v.evidence_from AS "evidenceFrom", v.evidence_to AS "evidenceTo"`;

/** Who may see which violations: operators and dispatchers their own operators' only (alerts reuse it). */
export function scopeOf(principal: Principal): { all: boolean; operatorIds: string[] } {
  if (principal.kind === 'admin') return { all: true, operatorIds: [] };
  if (principal.kind === 'device') throw new AppError('FORBIDDEN', 'Devices may not read violations', 403);
  if (principal.role === 'operator' || principal.role === 'dispatcher')
    return { all: false, operatorIds: principal.operatorIds };
  return { all: true, operatorIds: [] };
}

const encodeCursor = (row: ViolationRow) =>
  Buffer.from(`${row.startedAt.toISOString()}|${row.id}`).toString('base64url');
function decodeCursor(cursor: string): [string, string] {
  const [ts, id] = Buffer.from(cursor, 'base64url').toString().split('|');
  if (!ts || !id || Number.isNaN(Date.parse(ts))) throw new AppError('BAD_CURSOR', 'The cursor is not valid', 400);
  return [ts, id];
}

export class ViolationStore {
  constructor(private readonly db: Database) {}

  async list(principal: Principal, q: ViolationQuery): Promise<{ items: ViolationRow[]; next: string | null }> {
    const scope = scopeOf(principal);
    const where: string[] = [];
    const params: unknown[] = [];
    const add = (sql: string, value: unknown) => {
      params.push(value);
      where.push(sql.replace('?', `$${params.length}`));
    };
    if (!scope.all) add('v.operator_id = ANY(?::text[])', scope.operatorIds);
    if (q.pack) add('v.pack = ?', q.pack);
    if (q.ruleId) add('v.rule_id = ?', q.ruleId);
    if (q.vehicleId) add('v.vehicle_id = ?', q.vehicleId);
    if (q.plate) add('v.plate = ?', q.plate);
    if (q.operatorId) add('v.operator_id = ?', q.operatorId);
    if (q.status) add('v.status = ?', q.status);
    if (q.confidence) add('v.confidence = ?', q.confidence);
    if (q.from) add('v.started_at >= ?::timestamptz', q.from);
    if (q.to) add('v.started_at < ?::timestamptz', q.to);
    if (q.bbox) {
      const [x1, y1, x2, y2] = q.bbox;
      add('v.lon >= ?', x1);
      add('v.lat >= ?', y1);
      add('v.lon <= ?', x2);
      add('v.lat <= ?', y2);
    }
    if (q.cursor) {
      const [ts, id] = decodeCursor(q.cursor);
      params.push(ts, id);
      where.push(`(v.started_at, v.id) < ($${params.length - 1}::timestamptz, $${params.length})`);
    }
    params.push(q.limit + 1);
    const { rows } = await this.db.query<ViolationRow>(
      `SELECT ${SELECT} FROM violations v ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
       ORDER BY v.started_at DESC, v.id DESC LIMIT $${params.length}`,
      params,
    );
    const more = rows.length > q.limit;
    const items = more ? rows.slice(0, q.limit) : rows;
    const last = items.at(-1);
    return { items, next: more && last ? encodeCursor(last) : null };
  }

  async get(principal: Principal, id: string): Promise<ViolationRow> {
    const scope = scopeOf(principal);
    const { rows } = await this.db.query<ViolationRow>(
      `SELECT ${SELECT} FROM violations v WHERE v.id = $1 ${scope.all ? '' : 'AND v.operator_id = ANY($2::text[])'}`,
      scope.all ? [id] : [id, scope.operatorIds],
    );
    const row = rows[0];
    if (!row) throw new AppError('NOT_FOUND', `No violation '${id}'`, 404);
    return row;
  }

  /** The violation with its evidence: the vehicle's trace over the evidence window, and the review trail. */
  async detail(principal: Principal, id: string): Promise<Record<string, unknown>> {
    const v = await this.get(principal, id);
    const { rows: samples } = await this.db.query<{ ts: Date; lat: number; lon: number }>(
      `SELECT ts, lat, lon, speed_kmh AS "speedKmh", heading_deg AS "headingDeg", ignition, door_open AS "doorOpen",
              passengers, boardings, alightings, meter_state AS "meterState", meter_tariff AS "tariff",
              meter_fare_cents AS "fareCents", meter_trip_id AS "tripId", tacho_speed_kmh AS "tachoSpeedKmh",
              tacho_driver_id AS "driverId"
       FROM telemetry WHERE vehicle_id = $1 AND ts BETWEEN $2 AND $3 ORDER BY ts LIMIT 5000`,
      [v.vehicleId, v.evidenceFrom, v.evidenceTo],
    );
    const reviews = await this.reviewTrails([id]).then((trails) => trails.get(id) ?? []);
    return {
      ...v,
      evidence: {
        trace: { type: 'LineString', coordinates: samples.map((s) => [s.lon, s.lat]) },
        samples,
        measured: v.measured,
        window: { from: v.evidenceFrom, to: v.evidenceTo },
      },
      reviews,
    };
  }

  /**
   * The review trails of some violations, oldest decision first, keyed by violation id. Each
   * decision names its reviewer: `reviewer` is the user id (or `admin` for the admin token) as
   * recorded, `reviewerName` the user's name from the registry (null for the admin token, which
   * is no user, and for a user since removed).
   */
  async reviewTrails(ids: readonly string[]): Promise<Map<string, ReviewEntry[]>> {
    const trails = new Map<string, ReviewEntry[]>();
    // An export asks for up to 100,000 trails: a bounded id list per statement.
    for (let from = 0; from < ids.length; from += REVIEW_TRAIL_BATCH) {
      const { rows } = await this.db.query<ReviewEntry & { violationId: string }>(
        `SELECT r.violation_id AS "violationId", r.decision, r.reason, r.reviewer, u.name AS "reviewerName",
                r.from_status AS "fromStatus", r.to_status AS "toStatus", r.at
         FROM violation_reviews r LEFT JOIN users u ON u.id = r.reviewer
         WHERE r.violation_id = ANY($1::text[]) ORDER BY r.at, r.id`,
        [ids.slice(from, from + REVIEW_TRAIL_BATCH)],
      );
      for (const { violationId, ...entry } of rows) {
        const trail = trails.get(violationId);
        if (trail) trail.push(entry);
        else trails.set(violationId, [entry]);
      }
    }
    return trails;
  }

  /**
   * The workflow: open → confirmed | dismissed (a reviewer, with a reason) → notified (from
   * confirmed); dismissed → open again by `reopen`. Each decision is kept in violation_reviews.
   */
  async review(principal: Principal, id: string, review: Review): Promise<ViolationRow> {
    if (
      principal.kind === 'device' ||
      (principal.kind === 'user' && !['regulator', 'enforcement'].includes(principal.role))
    ) {
      throw new AppError('FORBIDDEN', 'Only regulators and enforcement officers review violations', 403);
    }
    const reviewer = principal.kind === 'admin' ? 'admin' : principal.userId;
    const allowed: Record<Review['decision'], { from: string[]; to: string }> = {
      confirm: { from: ['open'], to: 'confirmed' },
      dismiss: { from: ['open', 'confirmed'], to: 'dismissed' },
      notify: { from: ['confirmed'], to: 'notified' },
      reopen: { from: ['dismissed'], to: 'open' },
    };
    const rule = allowed[review.decision];
    await this.db.transaction(async (tx) => {
      const { rows } = await tx.query<{ status: string }>('SELECT status FROM violations WHERE id = $1 FOR UPDATE', [
        id,
      ]);
      const current = rows[0]?.status;
      if (!current) throw new AppError('NOT_FOUND', `No violation '${id}'`, 404);
      if (!rule.from.includes(current)) {
        throw new AppError(
          'INVALID_TRANSITION',
          `A ${current} violation cannot be given the decision '${review.decision}'`,
          409,
        );
      }
      await tx.query('UPDATE violations SET status = $2, updated_at = now() WHERE id = $1', [id, rule.to]);
      await tx.query(
        `INSERT INTO violation_reviews (violation_id, decision, reason, reviewer, from_status, to_status)
         VALUES ($1, $2, $3, $4, $5, $6)`,
        [id, review.decision, review.reason, reviewer, current, rule.to],
      );
      // The alerts' outbox (db/migrations/007_alerts.sql), committed with the review or not at all.
      await tx.query(`SELECT alert_record_events(ARRAY[$1::text], ARRAY['violation.reviewed'])`, [id]);
    });
    return this.get(principal, id);
  }
}
