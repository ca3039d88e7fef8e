-- Registry (operators, vehicles, drivers, devices, users), telemetry and live vehicle state.
-- Rows are never deleted: DELETE in the API retires them (retired_at), so history keeps them.

CREATE TABLE operators (
  id          text PRIMARY KEY,
  name        text NOT NULL,
  pack        text NOT NULL CHECK (pack IN ('sp-fretamento', 'df-taxi', 'belem-taxi')),
  kind        text NOT NULL DEFAULT 'company'
              CHECK (kind IN ('company', 'cooperative', 'permit-holder', 'radio-operator')),
  document    text,            -- CNPJ or CPF
  status      text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'suspended', 'withdrawn')),
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now(),
  retired_at  timestamptz
);

CREATE TABLE vehicles (
  id                   text PRIMARY KEY,
  plate                text NOT NULL,
  pack                 text NOT NULL CHECK (pack IN ('sp-fretamento', 'df-taxi', 'belem-taxi')),
  service_type         text NOT NULL
                       CHECK (service_type IN ('taxi', 'fretamento-continuo', 'fretamento-eventual', 'particular')),
  capacity             integer NOT NULL CHECK (capacity > 0),
  manufacture_year     integer,
  make                 text,
  colour               text,
  operator_id          text REFERENCES operators (id),
  permit_number        text,
  permit_valid_until   date,
  last_inspection_date date,
  div_valid_until      date,
  driver_ids           text[] NOT NULL DEFAULT '{}',
  status               text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'suspended', 'withdrawn')),
  created_at           timestamptz NOT NULL DEFAULT now(),
  updated_at           timestamptz NOT NULL DEFAULT now(),
  retired_at           timestamptz
);
CREATE UNIQUE INDEX vehicles_plate_current ON vehicles (plate) WHERE retired_at IS NULL;
CREATE INDEX vehicles_operator ON vehicles (operator_id);

CREATE TABLE drivers (
  id              text PRIMARY KEY,
  name            text NOT NULL,
  document        text,          -- CPF
  licence_number  text,          -- CNH
  operator_id     text REFERENCES operators (id),
  status          text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'suspended', 'withdrawn')),
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now(),
  retired_at      timestamptz
);

CREATE TABLE devices (
  id               text PRIMARY KEY,
  vehicle_id       text NOT NULL REFERENCES vehicles (id),
  protocol         text NOT NULL DEFAULT 'native',
  identifier       text NOT NULL,   -- IMEI or the id the device sends
  profile          text,
  token_hash       text NOT NULL,
  token_issued_at  timestamptz NOT NULL DEFAULT now(),
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  retired_at       timestamptz
);
CREATE UNIQUE INDEX devices_identifier_current ON devices (identifier) WHERE retired_at IS NULL;
CREATE INDEX devices_token ON devices (token_hash);
CREATE INDEX devices_vehicle ON devices (vehicle_id);

CREATE TABLE users (
  id               text PRIMARY KEY,
  name             text NOT NULL,
  role             text NOT NULL CHECK (role IN ('regulator', 'enforcement', 'dispatcher', 'operator')),
  operator_ids     text[] NOT NULL DEFAULT '{}',
  token_hash       text NOT NULL,
  token_issued_at  timestamptz NOT NULL DEFAULT now(),
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  retired_at       timestamptz
);
CREATE INDEX users_token ON users (token_hash);

-- One row per sample. (device_id, ts) identifies a sample: a re-sent one is a duplicate.
-- dist_m and dt_s are the distance and time since the vehicle's previous sample in time order,
-- computed at ingest (0 for a late, out-of-order sample); they feed the hourly aggregate.
CREATE TABLE telemetry (
  ts               timestamptz NOT NULL,
  device_id        text NOT NULL,
  vehicle_id       text NOT NULL,
  received_at      timestamptz NOT NULL,
  lat              double precision NOT NULL,
  lon              double precision NOT NULL,
  speed_kmh        real,
  heading_deg      real,
  accuracy_m       real,
  ignition         boolean,
  door_open        boolean,
  passengers       smallint,
  children_under7  smallint,
  boardings        smallint,
  alightings       smallint,
  meter_state      text,
  meter_tariff     smallint,
  meter_fare_cents integer,
  meter_trip_id    text,
  tacho_speed_kmh  real,
  tacho_driver_id  text,
  dist_m           real NOT NULL DEFAULT 0,
  dt_s             real NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX telemetry_device_ts ON telemetry (device_id, ts);
CREATE INDEX telemetry_vehicle_ts ON telemetry (vehicle_id, ts DESC);

-- The newest sample of each vehicle, kept up to date in the same transaction as the insert.
CREATE TABLE vehicle_live (
  vehicle_id   text PRIMARY KEY REFERENCES vehicles (id),
  device_id    text NOT NULL,
  ts           timestamptz NOT NULL,
  lat          double precision NOT NULL,
  lon          double precision NOT NULL,
  speed_kmh    real,
  heading_deg  real,
  meter_state  text,
  meter_tariff smallint,
  passengers   smallint,
  door_open    boolean,
  ignition     boolean,
  updated_at   timestamptz NOT NULL DEFAULT now()
);
