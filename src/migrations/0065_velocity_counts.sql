-- Risk, item 2. Velocity limits (docs/risk.md, "Velocity limits"): per merchant account, per keyed
-- MAC of a card fingerprint, buyer, e-mail address or IP address (never the value itself), per
-- currency and one-minute bucket: the authorization attempts, the declines, the amount attempted
-- and the distinct cards (short MACs, at most 64 per row: velocity thresholds on distinct cards stop
-- at 50, so a full row already exceeds every threshold). Each process adds its counts of the last
-- second in one statement (INSERT ... ON CONFLICT DO UPDATE adding, cards merged as a set, RETURNING
-- the new totals), and reads the other processes' changes (writer) by updated_at once a second
-- (src/modules/velocity/velocity-counters.ts).
-- Buckets older than the longest window (24 h) are purged by the purge-velocity-counts job.
CREATE TABLE velocity_counts (
  merchant_account_id  text NOT NULL REFERENCES merchant_accounts (id),
  -- HMAC-SHA256 (the merchant account's fingerprint key) of the key's kind and value, truncated.
  key_mac              text NOT NULL,
  currency             text NOT NULL,
  bucket_start         timestamptz(3) NOT NULL,
  attempts             integer NOT NULL DEFAULT 0,
  declines             integer NOT NULL DEFAULT 0,
  amount               bigint NOT NULL DEFAULT 0,
  cards                text[] NOT NULL DEFAULT '{}',
  updated_at           timestamptz(3) NOT NULL DEFAULT now(),
  -- The process that wrote the row last (a random id per process): it has the totals from RETURNING.
  writer               text NOT NULL DEFAULT '',
  PRIMARY KEY (merchant_account_id, key_mac, currency, bucket_start)
);
-- The once-a-second read of each process: rows of its merchant accounts changed since its last read.
CREATE INDEX velocity_counts_changed_idx ON velocity_counts (merchant_account_id, updated_at);
-- A process's first read of a merchant account (its buckets inside the longest window of its rules).
CREATE INDEX velocity_counts_window_idx ON velocity_counts (merchant_account_id, bucket_start);
-- The purge: buckets older than the longest window, across accounts.
CREATE INDEX velocity_counts_bucket_idx ON velocity_counts (bucket_start);
