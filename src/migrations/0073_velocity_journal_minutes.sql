-- Velocity counts of a sole writer (embedded PGlite), decision 0146: they live in velocity_journal
-- only (no longer a row of velocity_counts per cell once a minute is over). A row per merchant
-- account, minute (bucket_start) and write, its entries as lines of text (src/modules/velocity/
-- velocity-journal.ts: key MACs, currency, attempts, declines, amount, cards, tab-separated); a minute
-- whose rows repeat its keys is compacted into one row of its cells. A restarted process reads its
-- accounts' rows of the window by the primary key; the purge-velocity-counts job deletes rows past
-- 24 hours through velocity_journal_bucket_idx. Unused on PostgreSQL (migration 0065).
ALTER TABLE velocity_journal ADD COLUMN bucket_start timestamptz(3);

-- Rows of migration 0071 (a JSON array of [key MAC, currency, bucket ms, attempts, declines, amount,
-- cards]) become a row per minute in the lines format.
INSERT INTO velocity_journal (merchant_account_id, id, cells, created_at, bucket_start)
SELECT j.merchant_account_id, j.id || '-' || (c.value ->> 2),
  string_agg(concat_ws(E'\t', c.value ->> 0, c.value ->> 1, c.value ->> 3, c.value ->> 4, c.value ->> 5,
    (SELECT coalesce(string_agg(card, ','), '') FROM json_array_elements_text(c.value -> 6) AS card)), E'\n'),
  j.created_at, to_timestamp((c.value ->> 2)::bigint / 1000.0)
FROM velocity_journal AS j CROSS JOIN LATERAL json_array_elements(j.cells::json) AS c
WHERE j.bucket_start IS NULL
GROUP BY j.merchant_account_id, j.id, j.created_at, c.value ->> 2;
DELETE FROM velocity_journal WHERE bucket_start IS NULL;

ALTER TABLE velocity_journal ALTER COLUMN bucket_start SET NOT NULL;
ALTER TABLE velocity_journal DROP CONSTRAINT velocity_journal_pkey;
ALTER TABLE velocity_journal ADD PRIMARY KEY (merchant_account_id, bucket_start, id);
-- A row is written once and read back only on a restart: stored out of line without compression,
-- which halves PGlite's CPU per row (card and key MACs do not compress).
ALTER TABLE velocity_journal ALTER COLUMN cells SET STORAGE EXTERNAL;
CREATE INDEX velocity_journal_bucket_idx ON velocity_journal (bucket_start);
