-- Issue 54, item 2: the circuit breaker of each payment service (docs/routing.md, "Elimination: the
-- circuit breaker"). One row per payment service that has had an authorization since it was created;
-- every process on this database adds its counts here about once a second, under the row lock
-- (SELECT ... FOR UPDATE), and reads the rows that are not closed into its cache.

CREATE TABLE payment_service_circuits (
  merchant_account_id   text NOT NULL REFERENCES merchant_accounts (id),
  payment_service_id    uuid NOT NULL,
  -- `open` from `opened_at`; half-open (probed) from `retry_at` on, until a probe closes or reopens it.
  state                 text NOT NULL DEFAULT 'closed' CHECK (state IN ('closed', 'open')),
  -- The sliding window: counts of the current fixed window and of the one before it, weighted by
  -- how much of it still falls within the sliding window.
  window_started_at     timestamptz NOT NULL,
  calls                 integer NOT NULL DEFAULT 0 CHECK (calls >= 0),
  failures              integer NOT NULL DEFAULT 0 CHECK (failures >= 0),
  previous_calls        integer NOT NULL DEFAULT 0 CHECK (previous_calls >= 0),
  previous_failures     integer NOT NULL DEFAULT 0 CHECK (previous_failures >= 0),
  consecutive_failures  integer NOT NULL DEFAULT 0 CHECK (consecutive_failures >= 0),
  opened_at             timestamptz,
  retry_at              timestamptz,
  -- Why it opened last: e.g. `6 of 10 calls failed in 60 s`.
  reason                text,
  updated_at            timestamptz NOT NULL,
  PRIMARY KEY (merchant_account_id, payment_service_id),
  CHECK ((state = 'open') = (retry_at IS NOT NULL))
);

-- Each process's cache reads the circuits that are not closed (few) every second.
CREATE INDEX payment_service_circuits_open_idx ON payment_service_circuits (merchant_account_id) WHERE state = 'open';
