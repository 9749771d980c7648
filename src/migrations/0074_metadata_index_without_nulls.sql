-- Issue 57 (WAL per authorization): a GIN index keeps a placeholder entry for every NULL value, so
-- each transaction without metadata (most of them) wrote two entries to transactions_metadata_idx,
-- one at its insert and one at its update: 332 bytes of WAL per authorization, measured with
-- `npm run bench:wal`. The metadata filter's `metadata @> …` is strict, so PostgreSQL proves that
-- it implies `metadata IS NOT NULL` and still answers it from this partial index
-- (list-transactions.plan.test.ts).
DROP INDEX transactions_metadata_idx;
CREATE INDEX transactions_metadata_idx ON transactions USING gin (metadata jsonb_path_ops) WHERE metadata IS NOT NULL;
