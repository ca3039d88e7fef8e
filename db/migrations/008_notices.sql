-- Enforcement notices (autos de infração) issued from violations: one row per PDF handed out.
-- The verification code printed on the notice finds the row; the SHA-256 of the PDF's bytes lets
-- anyone holding a copy check that it is the one issued, unchanged. The PDF itself is not kept:
-- the hash is enough to verify a copy, and a stored copy would be a second record to protect.
CREATE TABLE notices (
  code          text PRIMARY KEY,                        -- e.g. 7KQ2-M9XD-P4HT (Crockford base32)
  violation_id  text NOT NULL REFERENCES violations (id),
  content_hash  text NOT NULL CHECK (content_hash ~ '^[0-9a-f]{64}$'),  -- SHA-256 of the PDF bytes, hex
  issued_at     timestamptz NOT NULL DEFAULT now(),
  issued_by     text NOT NULL                            -- 'admin' or the user id who downloaded it
);
CREATE INDEX notices_violation ON notices (violation_id, issued_at DESC);
