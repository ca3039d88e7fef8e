-- Reference data the rules read (stands, regular-service stops, zones, charter contracts,
-- holiday overrides, unit values), the history that versions every registry record in time,
-- and the violations with their review trail.

CREATE TABLE stops (
  id          text PRIMARY KEY,           -- GTFS stop_id
  name        text NOT NULL,
  lat         double precision NOT NULL,
  lon         double precision NOT NULL,
  source      text NOT NULL DEFAULT 'manual',
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now(),
  retired_at  timestamptz
);

CREATE TABLE stands (
  id                  text PRIMARY KEY,
  pack                text NOT NULL CHECK (pack IN ('sp-fretamento', 'df-taxi', 'belem-taxi')),
  name                text NOT NULL,
  geometry            jsonb NOT NULL,      -- GeoJSON Polygon, or Point with radius_m
  radius_m            double precision,
  places              integer NOT NULL CHECK (places > 0),   -- vagas
  kind                text NOT NULL CHECK (kind IN ('fixo', 'livre')),
  holder_vehicle_ids  text[] NOT NULL DEFAULT '{}',
  created_at          timestamptz NOT NULL DEFAULT now(),
  updated_at          timestamptz NOT NULL DEFAULT now(),
  retired_at          timestamptz,
  CONSTRAINT stand_point_needs_radius CHECK (geometry->>'type' <> 'Point' OR coalesce(radius_m, 0) > 0)
);

CREATE TABLE zones (
  id               text PRIMARY KEY,
  pack             text NOT NULL CHECK (pack IN ('sp-fretamento', 'df-taxi', 'belem-taxi')),
  kind             text NOT NULL,          -- airport | unpaved | bandeira2-signed | speed-limit | ...
  name             text NOT NULL,
  geometry         jsonb NOT NULL,         -- GeoJSON Polygon or MultiPolygon
  speed_limit_kmh  double precision,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  retired_at       timestamptz,
  CONSTRAINT speed_limit_zone_needs_limit CHECK (kind <> 'speed-limit' OR coalesce(speed_limit_kmh, 0) > 0)
);

-- A charter contract and its declared itinerary (Decreto SP Art. 10 §2, Art. 11 §2).
CREATE TABLE contracts (
  id                text PRIMARY KEY,
  operator_id       text NOT NULL REFERENCES operators (id),
  kind              text NOT NULL CHECK (kind IN ('fretamento-continuo', 'fretamento-eventual')),
  vehicle_ids       text[] NOT NULL DEFAULT '{}',
  client            text,
  route             jsonb NOT NULL,          -- GeoJSON LineString
  boarding_places   jsonb NOT NULL DEFAULT '[]',   -- [{ name, lat, lon, radiusM }]
  alighting_places  jsonb NOT NULL DEFAULT '[]',
  schedule          jsonb,
  valid_from        date NOT NULL,
  valid_until       date,
  created_at        timestamptz NOT NULL DEFAULT now(),
  updated_at        timestamptz NOT NULL DEFAULT now(),
  retired_at        timestamptz
);

-- Days a decree adds to (or removes from) a pack's holiday calendar.
CREATE TABLE holidays (
  id          text PRIMARY KEY,
  pack        text NOT NULL CHECK (pack IN ('sp-fretamento', 'df-taxi', 'belem-taxi')),
  date        date NOT NULL,
  name        text NOT NULL,
  kind        text NOT NULL DEFAULT 'add' CHECK (kind IN ('add', 'remove')),
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now(),
  retired_at  timestamptz
);

-- BRL value of the units fines are expressed in (ORTN, UPDF, UT, IPCA-E), from a date on.
CREATE TABLE unit_values (
  id          text PRIMARY KEY,
  unit        text NOT NULL CHECK (unit IN ('ORTN', 'UPDF', 'UT', 'IPCA-E')),
  value_brl   double precision NOT NULL CHECK (value_brl > 0),
  valid_from  date NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now(),
  retired_at  timestamptz,
  UNIQUE (unit, valid_from)
);

-- Every version of every registry record, as the API showed it: an event is judged against
-- the registry as it was at that moment.
CREATE TABLE registry_history (
  collection  text NOT NULL,
  id          text NOT NULL,
  valid_from  timestamptz NOT NULL,
  valid_to    timestamptz,
  record      jsonb NOT NULL,
  PRIMARY KEY (collection, id, valid_from)
);
CREATE INDEX registry_history_current ON registry_history (collection, id) WHERE valid_to IS NULL;

CREATE TABLE violations (
  id             text PRIMARY KEY,
  event_key      text NOT NULL UNIQUE,     -- the rule engine's stable key for one event
  rule_id        text NOT NULL,
  pack           text NOT NULL,
  legal_basis    text[] NOT NULL,
  description    text NOT NULL,
  description_en text NOT NULL,
  vehicle_id     text NOT NULL,
  plate          text,
  operator_id    text,
  permit_number  text,
  driver_id      text,
  variant        text,                      -- the rule's sub-case, e.g. vehicle-withdrawn
  phase          text NOT NULL DEFAULT 'ongoing' CHECK (phase IN ('ongoing', 'final')),
  started_at     timestamptz NOT NULL,
  ended_at       timestamptz,
  detected_at    timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now(),
  lat            double precision,
  lon            double precision,
  place          jsonb,
  confidence     text NOT NULL CHECK (confidence IN ('confirmed', 'suspected')),
  measured       jsonb NOT NULL DEFAULT '{}',
  penalty        jsonb NOT NULL DEFAULT '{}',
  recidivism     jsonb NOT NULL DEFAULT '{}',
  evidence_from  timestamptz NOT NULL,
  evidence_to    timestamptz NOT NULL,
  status         text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'confirmed', 'dismissed', 'notified'))
);
CREATE INDEX violations_detected ON violations (detected_at DESC, id DESC);
CREATE INDEX violations_vehicle ON violations (vehicle_id, started_at DESC);
CREATE INDEX violations_operator_rule ON violations (operator_id, rule_id, started_at DESC);

-- The review trail: who decided what, when and why.
CREATE TABLE violation_reviews (
  id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  violation_id  text NOT NULL REFERENCES violations (id),
  decision      text NOT NULL CHECK (decision IN ('confirm', 'dismiss', 'notify')),
  reason        text NOT NULL,
  reviewer      text NOT NULL,
  from_status   text NOT NULL,
  to_status     text NOT NULL,
  at            timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX violation_reviews_violation ON violation_reviews (violation_id, at);
