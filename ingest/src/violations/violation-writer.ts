import type { LiveViolation, Pack } from '@vigia/core';
import type { Queryable } from '@vigia/db';

/**
 * What the rule pipeline stores for one event. The engine raises an event once and then
 * updates it as it grows; `eventKey` is its stable identity, so writing the same event again
 * updates the stored row (never a second violation).
 */
export interface ViolationUpsert {
  eventKey: string;
  ruleId: string;
  pack: Pack;
  legalBasis: string[];
  description: string;
  descriptionEn: string;
  vehicleId: string;
  plate: string | null;
  operatorId: string | null;
  permitNumber: string | null;
  driverId: string | null;
  /** The rule's sub-case when it has several. */
  variant: string | null;
  /** `ongoing` while the event may still grow, `final` once it is over. */
  phase: 'ongoing' | 'final';
  startedAt: Date;
  endedAt: Date | null;
  lat: number | null;
  lon: number | null;
  place: { kind: string; id: string; name: string } | null;
  confidence: 'confirmed' | 'suspected';
  measured: Record<string, unknown>;
  penalty: Record<string, unknown>;
  recidivism: Record<string, unknown>;
  evidenceFrom: Date;
  evidenceTo: Date;
}

interface StoredRow {
  id: string;
  event_key: string;
  inserted: boolean;
  status: LiveViolation['status'];
  detected_at: Date;
}

/**
 * Upserts events in one statement. A new event gets an id derived from its key (so a replay
 * after a crash lands on the same row); an existing one takes the grown facts (end, measured
 * values, confidence, evidence window) but keeps its id, detection time and review status.
 */
export async function upsertViolations(tx: Queryable, items: readonly ViolationUpsert[]): Promise<LiveViolation[]> {
  // One statement may touch a row once: of several updates to one event, the last one stands.
  const latest = [...new Map(items.map((v) => [v.eventKey, v])).values()];
  if (latest.length === 0) return [];
  const rows = latest.map((v) => ({
    event_key: v.eventKey,
    rule_id: v.ruleId,
    pack: v.pack,
    legal_basis: v.legalBasis,
    description: v.description,
    description_en: v.descriptionEn,
    vehicle_id: v.vehicleId,
    plate: v.plate,
    operator_id: v.operatorId,
    permit_number: v.permitNumber,
    driver_id: v.driverId,
    variant: v.variant,
    phase: v.phase,
    started_at: v.startedAt.toISOString(),
    ended_at: v.endedAt?.toISOString() ?? null,
    lat: v.lat,
    lon: v.lon,
    place: v.place,
    confidence: v.confidence,
    measured: v.measured,
    penalty: v.penalty,
    recidivism: v.recidivism,
    evidence_from: v.evidenceFrom.toISOString(),
    evidence_to: v.evidenceTo.toISOString(),
  }));
  const { rows: stored } = await tx.query<StoredRow>(
    `INSERT INTO violations (id, event_key, rule_id, pack, legal_basis, description, description_en, vehicle_id, plate,
       operator_id, permit_number, driver_id, variant, phase, started_at, ended_at, lat, lon, place, confidence,
       measured, penalty, recidivism, evidence_from, evidence_to)
     SELECT 'vio_' || left(md5(r.event_key), 20), r.event_key, r.rule_id, r.pack, r.legal_basis, r.description,
       r.description_en, r.vehicle_id, r.plate, r.operator_id, r.permit_number, r.driver_id, r.variant, r.phase,
       r.started_at, r.ended_at, r.lat, r.lon, r.place, r.confidence, r.measured, r.penalty, r.recidivism,
       r.evidence_from, r.evidence_to
     FROM jsonb_populate_recordset(NULL::violations, $1::jsonb) AS r
     ON CONFLICT (event_key) DO UPDATE SET
       ended_at = EXCLUDED.ended_at, lat = EXCLUDED.lat, lon = EXCLUDED.lon, place = EXCLUDED.place,
       confidence = EXCLUDED.confidence, measured = EXCLUDED.measured, penalty = EXCLUDED.penalty,
       recidivism = EXCLUDED.recidivism, driver_id = EXCLUDED.driver_id, phase = EXCLUDED.phase,
       variant = EXCLUDED.variant,
       evidence_from = least(violations.evidence_from, EXCLUDED.evidence_from),
       evidence_to = greatest(violations.evidence_to, EXCLUDED.evidence_to), updated_at = now()
     RETURNING id, event_key, (xmax = 0) AS inserted, status, detected_at`,
    [JSON.stringify(rows)],
  );
  // The alerts' outbox (db/migrations/007_alerts.sql), in this same transaction: an alert exists
  // exactly when the change it reports committed.
  await tx.query('SELECT alert_record_events($1::text[], $2::text[])', [
    stored.map((s) => s.id),
    stored.map((s) => (s.inserted ? 'violation.raised' : 'violation.updated')),
  ]);
  const byKey = new Map(latest.map((v) => [v.eventKey, v]));
  return stored.map((s) => {
    const v = byKey.get(s.event_key)!;
    return {
      id: s.id,
      ruleId: v.ruleId,
      pack: v.pack,
      legalBasis: v.legalBasis,
      description: v.description,
      descriptionEn: v.descriptionEn,
      vehicleId: v.vehicleId,
      plate: v.plate,
      operatorId: v.operatorId,
      driverId: v.driverId,
      startedAt: v.startedAt.toISOString(),
      endedAt: v.endedAt?.toISOString() ?? null,
      detectedAt: new Date(s.detected_at).toISOString(),
      lat: v.lat,
      lon: v.lon,
      place: v.place,
      confidence: v.confidence,
      measured: v.measured,
      penalty: v.penalty,
      recidivism: v.recidivism,
      status: s.status,
      change: s.inserted ? 'raised' : 'updated',
    };
  });
}
