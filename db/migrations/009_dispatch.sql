-- Radio-taxi dispatch (API.md "Radio-taxi dispatch"): bookings taken by a radio operator or
-- cooperative, the offers each booking made to taxis (one open at a time), and each stand's legal
-- queue as the live rules see it (the one source of truth dispatch reads). Background work
-- (passing an expired offer on, following a booking from telemetry) runs in every API process,
-- coordinated by row locks on the booking.

CREATE TABLE bookings (
  id                 text PRIMARY KEY,
  operator_id        text NOT NULL REFERENCES operators (id),
  pack               text NOT NULL CHECK (pack IN ('sp-fretamento', 'df-taxi', 'belem-taxi')),
  mode               text NOT NULL DEFAULT 'auto' CHECK (mode IN ('auto', 'manual')),
  status             text NOT NULL DEFAULT 'pending'
                     CHECK (status IN ('pending', 'offered', 'accepted', 'arrived', 'on-board', 'completed',
                                       'cancelled', 'expired')),
  pickup_lat         double precision NOT NULL,
  pickup_lon         double precision NOT NULL,
  pickup_address     text,
  dropoff            jsonb,                 -- { lat, lon, address? } when given
  passengers         integer,
  notes              text,
  -- The stand whose queue is offered the booking first (Art. 37 m), when the pickup is at one.
  stand_id           text REFERENCES stands (id),
  vehicle_id         text REFERENCES vehicles (id),
  -- Who took it: 'admin' or a user id; who cancelled or assigned it likewise.
  created_by         text NOT NULL,
  created_at         timestamptz NOT NULL DEFAULT now(),
  updated_at         timestamptz NOT NULL DEFAULT now(),
  accepted_at        timestamptz,
  arrived_at         timestamptz,
  on_board_at        timestamptz,
  completed_at       timestamptz,
  cancelled_at       timestamptz,
  cancelled_by       text,
  cancel_reason      text,
  expired_at         timestamptz,
  -- When the booking expires if nobody has taken it (created_at + DISPATCH_BOOKING_TIMEOUT_S).
  expires_at         timestamptz NOT NULL,
  -- When the worker must look at it next (the open offer's expiry; the booking's own expiry).
  next_action_at     timestamptz
);
CREATE INDEX bookings_operator_created ON bookings (operator_id, created_at DESC);
CREATE INDEX bookings_status ON bookings (status, created_at DESC);
CREATE INDEX bookings_due ON bookings (next_action_at) WHERE status IN ('pending', 'offered');
-- A taxi serves one booking at a time: two processes assigning it at once, one wins.
CREATE UNIQUE INDEX bookings_vehicle_active ON bookings (vehicle_id) WHERE status IN ('accepted', 'arrived', 'on-board');

CREATE TABLE booking_offers (
  id            text PRIMARY KEY,
  booking_id    text NOT NULL REFERENCES bookings (id),
  seq           integer NOT NULL,          -- 1 = the first offer of the booking
  vehicle_id    text NOT NULL REFERENCES vehicles (id),
  offered_at    timestamptz NOT NULL DEFAULT now(),
  expires_at    timestamptz NOT NULL,
  response      text CHECK (response IN ('accepted', 'declined', 'expired', 'withdrawn')),
  responded_at  timestamptz,
  -- 'device:<id>', 'admin' or a user id (a dispatcher answering on the driver's behalf), 'system'.
  responded_by  text,
  eta_s         integer,
  distance_m    integer,                   -- straight line from the taxi to the pickup when offered
  -- Why this taxi, in this order: 'stand-queue' (head of the pickup stand's queue) or 'eta'; or 'manual'.
  basis         text NOT NULL DEFAULT 'eta' CHECK (basis IN ('stand-queue', 'eta', 'manual')),
  UNIQUE (booking_id, seq)
);
-- A taxi holds one open offer at a time: two bookings offering it at once, one wins.
CREATE UNIQUE INDEX booking_offers_open_vehicle ON booking_offers (vehicle_id) WHERE response IS NULL;

-- Each stand's legal queue as the live rules last computed it (first in line first), written by
-- the process whose rule engine saw the change.
CREATE TABLE stand_queues (
  stand_id    text PRIMARY KEY REFERENCES stands (id),
  pack        text NOT NULL,
  items       jsonb NOT NULL DEFAULT '[]', -- [{ vehicleId, enteredAt }]
  as_of       timestamptz NOT NULL,        -- the event time of the data it rests on
  updated_at  timestamptz NOT NULL DEFAULT now()
);
