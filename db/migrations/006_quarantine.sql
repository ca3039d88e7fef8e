-- Records a device gateway acknowledged but refused to store (latitude 91, a time a year ahead):
-- the device must be acknowledged or it re-sends them forever, and what was acknowledged must not
-- be lost, so they are kept here with their raw bytes and the reason, for an admin to inspect.
-- A plain table (no hypertable): small, written rarely, purged by QUARANTINE_RETENTION_DAYS.

CREATE TABLE quarantined_records (
  id                 bigserial PRIMARY KEY,
  received_at        timestamptz NOT NULL DEFAULT now(),
  protocol           text NOT NULL,          -- teltonika, osmand, gt06, ...
  transport          text,                   -- tcp, udp, http
  device_identifier  text NOT NULL,          -- the IMEI or id the device sent
  device_id          text,                   -- the registry device, when the identifier was known
  code               text NOT NULL,          -- INVALID_FIX, FUTURE_TIMESTAMP, ...
  message            text NOT NULL,
  raw                bytea NOT NULL,         -- the record's bytes as received
  decoded            jsonb                   -- the fields as decoded, when decoding got that far
);

-- A device re-sends a packet whose ACK was lost (or not sent: storage failed): the same bytes from
-- the same device are the same record, kept once (inserts use ON CONFLICT DO NOTHING).
CREATE UNIQUE INDEX quarantined_records_once
  ON quarantined_records (protocol, device_identifier, md5(raw)) WHERE octet_length(raw) > 0;

-- The admin listing pages newest first by (received_at, id); the purge deletes by received_at.
CREATE INDEX quarantined_records_received ON quarantined_records (received_at DESC, id DESC);
CREATE INDEX quarantined_records_device ON quarantined_records (device_identifier, received_at DESC);
