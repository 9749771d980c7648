-- Issue 57 (PGlite's p99, the sealer's cost): the audit sealer reads each queued entry by its
-- primary key, whatever the planner's statistics say.
--
-- svc_audit_seal_account (migration 0079) joined the queue to audit_logs and left the join to the
-- planner. Without fresh statistics (PGlite has no autovacuum; a PostgreSQL server's autovacuum
-- runs at most once a minute, and plpgsql keeps a generic plan for the session) it chose a hash
-- join that read every audit entry of the account to link the few queued ones: 3,005 index entries
-- of audit_logs_user_idx to seal 5 entries after 3,000, the cost of each call growing with the
-- log (on PGlite 514 µs an entry at first and 6.5 ms after 14,700 entries, holding the only
-- session and the event loop while every request waited; on PostgreSQL 98 µs to 1.6 ms).
--
-- Now the queued entries are taken in order from the queue's key (LIMIT), and each is read by
-- audit_logs' primary key in a LATERAL subquery with LIMIT 1, which the planner cannot flatten
-- into a join it would plan otherwise: one probe an entry, a flat 33 to 56 µs an entry on both
-- databases without statistics. The queue's rows are removed as before, by a join to unnest() of
-- the batch's keys (two `= ANY` conditions instead made PostgreSQL 15 probe every pair of a time
-- and an id: minutes for a backlog). The order, the hashes, the batch and the head are as in 0079.

CREATE OR REPLACE FUNCTION svc_audit_seal_account(account text, max_entries int) RETURNS int
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  e audit_logs;
  place bigint;
  previous bytea;
  first_prev bytea;
  ids uuid[] := '{}';
  stamps timestamptz[] := '{}';
  hashes bytea[] := '{}';
BEGIN
  SELECT first_seq + length(b.hashes) / 32 - 1, substring(b.hashes FROM length(b.hashes) - 31 FOR 32)
    INTO place, previous
    FROM audit_chain_batches b WHERE merchant_account_id = account ORDER BY first_seq DESC LIMIT 1;
  IF NOT FOUND THEN
    place := 0;
    previous := decode(repeat('00', 32), 'hex');
  END IF;
  first_prev := previous;
  FOR e IN SELECT a.* FROM (
        SELECT p.created_at, p.audit_log_id FROM audit_chain_pending p
        WHERE p.merchant_account_id = account ORDER BY p.created_at, p.audit_log_id LIMIT max_entries
      ) AS p
      -- LIMIT 1 (the primary key holds one row): a probe per entry, never flattened into a join.
      CROSS JOIN LATERAL (
        SELECT * FROM audit_logs a WHERE a.merchant_account_id = account AND a.id = p.audit_log_id LIMIT 1
      ) AS a
      ORDER BY p.created_at, p.audit_log_id LOOP
    place := place + 1;
    ids := ids || e.id;
    stamps := stamps || e.created_at;
    previous := sha256(previous || convert_to(svc_audit_canonical(e, place), 'UTF8'));
    hashes := hashes || previous;
  END LOOP;
  IF cardinality(ids) = 0 THEN
    RETURN 0;
  END IF;
  INSERT INTO audit_chain_batches (merchant_account_id, first_seq, prev_hash, audit_log_ids, hashes)
    VALUES (account, place - cardinality(ids) + 1, first_prev, ids,
      (SELECT string_agg(h, ''::bytea ORDER BY n) FROM unnest(hashes) WITH ORDINALITY AS t(h, n)));
  -- Exactly the rows linked: one whose transaction committed meanwhile waits for the next batch.
  DELETE FROM audit_chain_pending p USING unnest(stamps, ids) AS t(c, i)
    WHERE p.merchant_account_id = account AND p.created_at = t.c AND p.audit_log_id = t.i;
  INSERT INTO audit_chain_heads (merchant_account_id, seq, hash) VALUES (account, place, previous)
  ON CONFLICT (merchant_account_id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash, updated_at = now();
  RETURN cardinality(ids);
END
$$;
