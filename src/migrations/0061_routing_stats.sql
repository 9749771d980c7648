-- Issue 54. Success-rate routing (docs/routing.md, "Success-rate routing"): the outcomes of
-- authorizations per payment service, dimension key and one-minute bucket, counted by every
-- process. Each process adds its counts of the last second in one statement
-- (INSERT ... ON CONFLICT DO UPDATE SET successes = routing_stats.successes + excluded.successes),
-- so counts of several processes add up. Buckets older than the longest window (24 h) are purged
-- by the purge-routing-stats job.
--
-- No foreign key to payment_services: a flush writes the counts of many services in one
-- statement, which must not fail for one service; counts of a service that is gone age out.
CREATE TABLE routing_stats (
  merchant_account_id  text NOT NULL REFERENCES merchant_accounts (id),
  payment_service_id   uuid NOT NULL,
  -- `*` (the service overall) or `scheme=visa,currency=USD,...` (src/modules/routing-stats/dimensions.ts).
  dimension_key        text NOT NULL,
  bucket_start         timestamptz(3) NOT NULL,
  successes            integer NOT NULL DEFAULT 0,
  failures             integer NOT NULL DEFAULT 0,
  PRIMARY KEY (merchant_account_id, payment_service_id, dimension_key, bucket_start)
);
-- The read: one merchant account's buckets inside a window.
CREATE INDEX routing_stats_window_idx ON routing_stats (merchant_account_id, bucket_start);
-- The purge: buckets older than the longest window, across accounts.
CREATE INDEX routing_stats_bucket_idx ON routing_stats (bucket_start);
