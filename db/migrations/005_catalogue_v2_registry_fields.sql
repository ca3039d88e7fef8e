-- Registry facts read by the rules of catalogue v2 (RULES.md "Catalogue v2"). Every column is
-- optional or has a default, so existing rows and clients keep working.

ALTER TABLE vehicles
  -- State of the permit (DF) / authorization (Belém) / registration (SP) the vehicle runs under:
  -- suspended (DF Art. 15; Belém Art. 3 IX, Art. 15), withdrawn (recolhida: DF Art. 54; Belém
  -- Art. 59 apprehension), cancelled (DF Art. 17–18; Belém Art. 8 cassação).
  ADD COLUMN permit_status text NOT NULL DEFAULT 'active'
    CHECK (permit_status IN ('active', 'suspended', 'withdrawn', 'cancelled')),
  -- Belém: vehicle of the special-tariff cooperative service (transporte especial, Art. 36–37).
  ADD COLUMN special_tariff_service boolean NOT NULL DEFAULT false;

-- Drivers already carry status (the regulator sets 'withdrawn' when it requires the driver's
-- removal, SP Art. 23 II) and operator_id (the employer, SP Art. 12 sole paragraph).
ALTER TABLE drivers
  ADD COLUMN badge_valid_until date;   -- Belém: union identification badge (crachá), item 4.3

-- SP Art. 24 II: the regulator's authorizations for listed vehicles of another company,
-- [{ vehicleId, reference, validUntil }].
ALTER TABLE contracts
  ADD COLUMN other_company_authorizations jsonb NOT NULL DEFAULT '[]';
