-- Issue 57 (PGlite's p99), decision 0160: no planner statistics for the JSON snapshots that no query
-- filters or sorts by.
--
-- ANALYZE of `transactions` spent about a third of its time on these columns: the most common
-- values and histogram of a jsonb column are found by comparing jsonb values, which is slow, and
-- are never used (a query reads them, it never filters by them: the filters on a path inside one,
-- such as payment_method->>'bin', use their expression index's own statistics, which are kept).
-- On PGlite ANALYZE holds the only session and every request waits behind it.
--
-- `metadata` (filtered with @>) and `three_d_secure` (filtered with IS NULL, whose selectivity
-- comes from the column's statistics) keep theirs.
ALTER TABLE transactions
  ALTER COLUMN actions SET STATISTICS 0,
  ALTER COLUMN payment_method SET STATISTICS 0,
  ALTER COLUMN payment_service SET STATISTICS 0,
  ALTER COLUMN additional_identifiers SET STATISTICS 0,
  ALTER COLUMN extra SET STATISTICS 0,
  ALTER COLUMN buyer SET STATISTICS 0,
  ALTER COLUMN cart_items SET STATISTICS 0,
  ALTER COLUMN shipping_details SET STATISTICS 0,
  ALTER COLUMN airline SET STATISTICS 0,
  ALTER COLUMN connection_options SET STATISTICS 0,
  ALTER COLUMN recipient SET STATISTICS 0;

ALTER TABLE transaction_history
  ALTER COLUMN context SET STATISTICS 0,
  ALTER COLUMN more SET STATISTICS 0;
