-- Registry facts the rules read that the first schema did not carry (see rules/src/registry).

ALTER TABLE vehicles
  ADD COLUMN model_year integer,                        -- Belém counts age from the model year (Art. 27)
  ADD COLUMN permit_kind text CHECK (permit_kind IN ('autonomous', 'company')),   -- DF Art. 36
  ADD COLUMN inspection_valid_until date,               -- SP: expiry printed on the vistoria certificate
  ADD COLUMN safety_certificate_valid_until date,       -- DF Art. 25 §1–2
  ADD COLUMN age_extension_valid_until date,            -- Belém Art. 28 II
  ADD COLUMN tachograph_linked boolean NOT NULL DEFAULT false;  -- the tracker reads the tachograph

ALTER TABLE operators
  DROP CONSTRAINT operators_kind_check,
  ADD CONSTRAINT operators_kind_check
    CHECK (kind IN ('company', 'cooperative', 'permit-holder', 'radio-operator', 'association', 'private-fleet')),
  ADD COLUMN registration_valid_until date,             -- SP Art. 7 §3
  ADD COLUMN credential_valid_until date,               -- Belém radio operators, Art. 42–43
  ADD COLUMN declared_vehicle_ids text[] NOT NULL DEFAULT '{}';  -- Belém Art. 44 I

ALTER TABLE drivers
  ADD COLUMN pack text CHECK (pack IN ('sp-fretamento', 'df-taxi', 'belem-taxi')),
  ADD COLUMN matricula_valid_until date;                -- DF Art. 14

ALTER TABLE stands
  ADD COLUMN holder_operator_ids text[] NOT NULL DEFAULT '{}';   -- Belém Art. 3 XIV a

-- Dispatches by radio operators (Belém Art. 42–44): the input of BEL_UNAUTHORIZED_RADIO.
CREATE TABLE dispatches (
  id                 text PRIMARY KEY,
  ts                 timestamptz NOT NULL,
  radio_operator_id  text NOT NULL,
  vehicle_id         text NOT NULL,
  pickup_lat         double precision,
  pickup_lon         double precision,
  reference          text,
  received_at        timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX dispatches_vehicle ON dispatches (vehicle_id, ts);
