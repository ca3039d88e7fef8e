-- Finding by plate (issue 11, "Find anything"): `GET /v1/violations?plate=` reads a vehicle's
-- violations newest first like the vehicleId filter does, and `GET /v1/search` and
-- `GET /v1/vehicles?permitNumber=` find a permit number by equality without a scan.
-- Plain b-tree indexes: PGlite and every managed PostgreSQL have them (no pg_trgm needed; the
-- substring search reads the small registry tables in full, see api/src/search/README.md).
CREATE INDEX IF NOT EXISTS violations_plate ON violations (plate, started_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS vehicles_permit_number ON vehicles (permit_number) WHERE permit_number IS NOT NULL;
