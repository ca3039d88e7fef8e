-- Alerts to enforcement (API.md "Alerts to enforcement"): subscriptions, a transactional outbox of
-- violation events, and one delivery per event x subscription. The outbox row is written in the
-- same transaction as the violation change, so an alert exists exactly when the change committed;
-- a worker in every API process fans events out and delivers them, coordinated by row locks.

CREATE TABLE alert_subscriptions (
  id             text PRIMARY KEY,
  name           text NOT NULL,
  url            text,                      -- an http(s) URL, or
  email          text,                      -- an address (the e-mail channel)
  secret         text NOT NULL,             -- HMAC key of Vigia-Signature; shown only on create
  events         text[] NOT NULL DEFAULT ARRAY['violation.raised'],
  filter         jsonb NOT NULL DEFAULT '{}',
  -- The owner: 'admin' (the admin token) or a user; what it receives never exceeds what the
  -- owner could read, judged at fan-out with the user's current role and scope.
  owner_kind     text NOT NULL CHECK (owner_kind IN ('admin', 'user')),
  owner_user_id  text REFERENCES users (id),
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now(),
  deleted_at     timestamptz,
  -- The first failed attempt since the last delivered alert; failing once older than the max age.
  failing_since  timestamptz,
  CHECK ((url IS NULL) <> (email IS NULL)),
  CHECK ((owner_kind = 'user') = (owner_user_id IS NOT NULL))
);
CREATE INDEX alert_subscriptions_owner ON alert_subscriptions (owner_user_id) WHERE deleted_at IS NULL;

-- The outbox. `seq` orders the events of one violation: its row is locked by the change that
-- writes the event (upsert or review), so per violation the seq order is the commit order.
CREATE TABLE alert_events (
  id             text PRIMARY KEY,          -- the event id receivers deduplicate on
  seq            bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  violation_id   text NOT NULL REFERENCES violations (id),
  type           text NOT NULL CHECK (type IN ('violation.raised', 'violation.updated', 'violation.reviewed')),
  created_at     timestamptz NOT NULL DEFAULT now(),
  payload        jsonb NOT NULL,            -- the violation as GET /v1/violations/:id, without evidence
  fanned_out_at  timestamptz
);
CREATE INDEX alert_events_unfanned ON alert_events (seq) WHERE fanned_out_at IS NULL;
CREATE INDEX alert_events_violation ON alert_events (violation_id, seq DESC);

CREATE TABLE alert_deliveries (
  id                    text PRIMARY KEY,
  event_id              text NOT NULL REFERENCES alert_events (id),
  event_seq             bigint NOT NULL,
  violation_id          text NOT NULL,
  subscription_id       text NOT NULL REFERENCES alert_subscriptions (id),
  status                text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts              integer NOT NULL DEFAULT 0,
  created_at            timestamptz NOT NULL DEFAULT now(),
  -- Retries run until this time plus ALERT_MAX_AGE_MS; a redelivery starts it again.
  pending_since         timestamptz NOT NULL DEFAULT now(),
  next_attempt_at       timestamptz NOT NULL DEFAULT now(),
  -- A claimed attempt holds the row until then; a process killed mid-attempt loses it to another after.
  leased_until          timestamptz,
  last_attempt_at       timestamptz,
  last_response_status  integer,
  last_duration_ms      integer,
  last_error            text,                -- a short code (TIMEOUT, CONNECTION_FAILED, ...), never a body
  delivered_at          timestamptz,
  UNIQUE (event_id, subscription_id)
);
CREATE INDEX alert_deliveries_due ON alert_deliveries (subscription_id, next_attempt_at) WHERE status = 'pending';
CREATE INDEX alert_deliveries_order ON alert_deliveries (subscription_id, violation_id, event_seq) WHERE status = 'pending';
CREATE INDEX alert_deliveries_log ON alert_deliveries (subscription_id, event_seq DESC);

-- The alert's `violation`: the same fields as GET /v1/violations/:id (ISO times), with its review
-- trail and without the evidence. One definition for the two writers (ingest and review).
CREATE FUNCTION alert_violation_payload(vid text) RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT jsonb_build_object(
    'id', v.id, 'ruleId', v.rule_id, 'pack', v.pack, 'legalBasis', to_jsonb(v.legal_basis),
    'description', v.description, 'descriptionEn', v.description_en, 'vehicleId', v.vehicle_id,
    'plate', v.plate, 'operatorId', v.operator_id, 'driverId', v.driver_id,
    'startedAt', to_char(v.started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'endedAt', to_char(v.ended_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'detectedAt', to_char(v.detected_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'updatedAt', to_char(v.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'lat', v.lat, 'lon', v.lon, 'place', v.place, 'confidence', v.confidence, 'measured', v.measured,
    'penalty', v.penalty, 'recidivism', v.recidivism, 'status', v.status,
    'evidenceFrom', to_char(v.evidence_from AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'evidenceTo', to_char(v.evidence_to AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'reviews', coalesce((
      SELECT jsonb_agg(jsonb_build_object(
        'decision', r.decision, 'reason', r.reason, 'reviewer', r.reviewer, 'fromStatus', r.from_status,
        'toStatus', r.to_status, 'at', to_char(r.at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
        ORDER BY r.at, r.id)
      FROM violation_reviews r WHERE r.violation_id = v.id), '[]'::jsonb))
  FROM violations v WHERE v.id = vid
$$;

-- Writes the outbox rows of a change, in the caller's transaction. An `updated` event whose
-- violation reads the same as in its last event (apart from updatedAt) is not written: the rule
-- pipeline re-writes ongoing events often, and receivers want changes, not heartbeats.
CREATE FUNCTION alert_record_events(ids text[], types text[]) RETURNS void LANGUAGE sql AS $$
  INSERT INTO alert_events (id, violation_id, type, payload)
  SELECT 'evt_' || replace(gen_random_uuid()::text, '-', ''), x.id, x.type, p.payload
  FROM unnest(ids, types) WITH ORDINALITY AS x(id, type, n)
  CROSS JOIN LATERAL (SELECT alert_violation_payload(x.id) AS payload) p
  WHERE p.payload IS NOT NULL
    AND (x.type <> 'violation.updated' OR (p.payload - 'updatedAt') IS DISTINCT FROM (
      SELECT l.payload - 'updatedAt' FROM alert_events l WHERE l.violation_id = x.id ORDER BY l.seq DESC LIMIT 1))
  ORDER BY x.n
$$;
