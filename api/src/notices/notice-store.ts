import type { Database } from '@vigia/db';

/**
 * What an enforcement notice is made of, read in one place (SQL only): the violation with the
 * registry records it names (vehicle, operator, driver), its evidence trace, and the stops,
 * stands and zones around it for the map. Also the register of issued notices (008_notices.sql).
 */

export interface NoticeFacts {
  id: string;
  ruleId: string;
  pack: string;
  legalBasis: string[];
  description: string;
  vehicleId: string;
  plate: string | null;
  make: string | null;
  colour: string | null;
  permitNumber: string | null;
  operatorId: string | null;
  operatorName: string | null;
  operatorDocument: string | null;
  driverId: string | null;
  driverName: string | null;
  driverLicence: string | null;
  startedAt: Date;
  endedAt: Date | null;
  lat: number | null;
  lon: number | null;
  place: { id?: string; kind?: string; name?: string } | null;
  confidence: string;
  status: string;
  measured: Record<string, unknown>;
  penalty: Record<string, unknown>;
  recidivism: Record<string, unknown>;
  evidenceFrom: Date;
  evidenceTo: Date;
}

export type LonLat = [number, number];

/** A stop, stand or zone drawn on the map; `geometry` is GeoJSON (Point, Polygon, MultiPolygon). */
export interface MapPlace {
  id: string;
  kind: 'stop' | 'stand' | 'zone';
  name: string;
  geometry: { type: string; coordinates: unknown };
  radiusM: number | null;
}

export interface IssuedNotice {
  code: string;
  violationId: string;
  contentHash: string;
  issuedAt: Date;
  issuedBy: string;
  plate: string | null;
}

/** Enough samples for a trip of hours at one per 5 s; the map needs no more. */
const TRACE_MAX_SAMPLES = 5000;
/** Context places drawn around the evidence, per kind. */
const PLACES_MAX = 300;

export class NoticeStore {
  constructor(private readonly db: Database) {}

  async facts(violationId: string): Promise<NoticeFacts | undefined> {
    const { rows } = await this.db.query<NoticeFacts>(
      `SELECT v.id, v.rule_id AS "ruleId", v.pack, v.legal_basis AS "legalBasis", v.description,
              v.vehicle_id AS "vehicleId", coalesce(v.plate, ve.plate) AS plate, ve.make, ve.colour,
              coalesce(v.permit_number, ve.permit_number) AS "permitNumber",
              coalesce(v.operator_id, ve.operator_id) AS "operatorId", o.name AS "operatorName",
              o.document AS "operatorDocument", v.driver_id AS "driverId", d.name AS "driverName",
              d.licence_number AS "driverLicence", v.started_at AS "startedAt", v.ended_at AS "endedAt",
              v.lat, v.lon, v.place, v.confidence, v.status, v.measured, v.penalty, v.recidivism,
              v.evidence_from AS "evidenceFrom", v.evidence_to AS "evidenceTo"
       FROM violations v
       LEFT JOIN vehicles ve ON ve.id = v.vehicle_id
       LEFT JOIN operators o ON o.id = coalesce(v.operator_id, ve.operator_id)
       LEFT JOIN drivers d ON d.id = v.driver_id
       WHERE v.id = $1`,
      [violationId],
    );
    return rows[0];
  }

  async trace(f: Pick<NoticeFacts, 'vehicleId' | 'evidenceFrom' | 'evidenceTo'>): Promise<LonLat[]> {
    const { rows } = await this.db.query<{ lat: number; lon: number }>(
      `SELECT lat, lon FROM telemetry WHERE vehicle_id = $1 AND ts BETWEEN $2 AND $3 ORDER BY ts LIMIT ${TRACE_MAX_SAMPLES}`,
      [f.vehicleId, f.evidenceFrom, f.evidenceTo],
    );
    return rows.map((r) => [r.lon, r.lat]);
  }

  /**
   * The current stops, and the pack's current stands and zones, near the box. Stands and zones
   * keep their geometry as GeoJSON (no PostGIS), so they are narrowed by the box in the caller.
   */
  async placesNear(pack: string, box: { minLon: number; minLat: number; maxLon: number; maxLat: number }) {
    const stops = await this.db.query<{ id: string; name: string; lat: number; lon: number }>(
      `SELECT id, name, lat, lon FROM stops
       WHERE retired_at IS NULL AND lon BETWEEN $1 AND $3 AND lat BETWEEN $2 AND $4 LIMIT ${PLACES_MAX}`,
      [box.minLon, box.minLat, box.maxLon, box.maxLat],
    );
    const stands = await this.db.query<{
      id: string;
      name: string;
      geometry: MapPlace['geometry'];
      radiusM: number | null;
    }>(
      `SELECT id, name, geometry, radius_m AS "radiusM" FROM stands WHERE retired_at IS NULL AND pack = $1 LIMIT ${PLACES_MAX}`,
      [pack],
    );
    const zones = await this.db.query<{ id: string; name: string; geometry: MapPlace['geometry'] }>(
      `SELECT id, name, geometry FROM zones WHERE retired_at IS NULL AND pack = $1 LIMIT ${PLACES_MAX}`,
      [pack],
    );
    const places: MapPlace[] = [
      ...zones.rows.map((z) => ({ ...z, kind: 'zone' as const, radiusM: null })),
      ...stands.rows.map((s) => ({ ...s, kind: 'stand' as const })),
      ...stops.rows.map((s) => ({
        id: s.id,
        name: s.name,
        kind: 'stop' as const,
        geometry: { type: 'Point', coordinates: [s.lon, s.lat] },
        radiusM: null,
      })),
    ];
    return places;
  }

  /** The issuing officer's name, as the notice prints it (Belém Art. 55 V: the agent). */
  async userName(userId: string): Promise<string | undefined> {
    const { rows } = await this.db.query<{ name: string }>('SELECT name FROM users WHERE id = $1', [userId]);
    return rows[0]?.name;
  }

  async record(n: Omit<IssuedNotice, 'plate' | 'issuedAt'> & { issuedAt: Date }): Promise<void> {
    await this.db.query(
      'INSERT INTO notices (code, violation_id, content_hash, issued_at, issued_by) VALUES ($1, $2, $3, $4, $5)',
      [n.code, n.violationId, n.contentHash, n.issuedAt, n.issuedBy],
    );
  }

  async find(code: string): Promise<IssuedNotice | undefined> {
    const { rows } = await this.db.query<IssuedNotice>(
      `SELECT n.code, n.violation_id AS "violationId", n.content_hash AS "contentHash", n.issued_at AS "issuedAt",
              n.issued_by AS "issuedBy", coalesce(v.plate, ve.plate) AS plate
       FROM notices n JOIN violations v ON v.id = n.violation_id LEFT JOIN vehicles ve ON ve.id = v.vehicle_id
       WHERE n.code = $1`,
      [code],
    );
    return rows[0];
  }
}
