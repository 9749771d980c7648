-- Velocity counts of a sole writer (embedded PGlite, decision 0142): the process writes each minute's
-- cells to velocity_counts once, when the minute is over, and every 10 seconds appends what it
-- counted since its last write here (one row per merchant account and write, the cells as JSON).
-- When a minute's cells go to velocity_counts, the account's rows here are replaced, in the same
-- transaction, by one row of the cells that remain. A restarted process reads its accounts' rows
-- back. Unused on PostgreSQL, where every process writes its counts to velocity_counts once a second
-- (migration 0065).
CREATE TABLE velocity_journal (
  merchant_account_id  text NOT NULL REFERENCES merchant_accounts (id),
  id                   text NOT NULL,
  cells                text NOT NULL,
  created_at           timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (merchant_account_id, id)
);
