-- The audit chain's links are stored one row per sealed batch instead of one row per entry
-- (decision 0157, partly superseding 0145): a row holds the batch's first place, the hash before
-- it, its entries' ids in place order and their hashes (32 bytes each, concatenated). The chain's
-- mathematics is unchanged (entry i of an account has seq i, hash_i = SHA-256(hash_{i-1} ||
-- svc_audit_canonical(entry, i))), and so is every hash already written: anchors written before
-- this migration still verify. No index entry per entry any more: the per-entry primary key and the
-- unique index on audit_log_id cost 169 bytes of WAL per entry, the heap row 162.

-- No link is written while they move (the sealers of other processes wait, then fail once and seal
-- again with the function below). ACCESS EXCLUSIVE from the start, not EXCLUSIVE upgraded by the
-- DROP below: a sealer that read the links and waits to insert would otherwise deadlock with this
-- migration. audit_logs is not locked, unlike in 0072: writers go on queueing entries in
-- audit_chain_pending, which this migration does not touch; they are linked after it commits.
LOCK TABLE audit_chain_links IN ACCESS EXCLUSIVE MODE;

-- first_seq is the place of the batch's first entry, prev_hash the hash of the entry before it
-- (32 zero bytes before seq 1); the entry at audit_log_ids[k] has place first_seq + k - 1 and hash
-- substring(hashes FROM 32 * (k - 1) + 1 FOR 32). Inside a batch each entry's prev_hash is its
-- predecessor's hash by construction. hashes is stored uncompressed out of line (EXTERNAL: hashes
-- do not compress), so the last hash of a batch is read without reading the rest.
CREATE TABLE audit_chain_batches (
  merchant_account_id text NOT NULL REFERENCES merchant_accounts (id),
  first_seq           bigint NOT NULL,
  prev_hash           bytea NOT NULL,
  audit_log_ids       uuid[] NOT NULL,
  hashes              bytea NOT NULL,
  PRIMARY KEY (merchant_account_id, first_seq),
  CONSTRAINT audit_chain_batches_shape CHECK (
    first_seq >= 1 AND length(prev_hash) = 32 AND cardinality(audit_log_ids) >= 1
    AND array_ndims(audit_log_ids) = 1 AND array_position(audit_log_ids, NULL) IS NULL
    AND length(hashes) = 32 * cardinality(audit_log_ids))
);
ALTER TABLE audit_chain_batches ALTER COLUMN hashes SET STORAGE EXTERNAL;

-- The links move as they are, nothing recomputed: a batch is a run of consecutive places of one
-- account in which each link's prev_hash is the previous link's hash, cut every 1,000 links. A
-- link whose prev_hash is not its predecessor's hash (a tampered chain) starts a batch, so every
-- link's four values are kept and a verification finds what it found before.
INSERT INTO audit_chain_batches (merchant_account_id, first_seq, prev_hash, audit_log_ids, hashes)
  SELECT merchant_account_id, min(seq), (array_agg(prev_hash ORDER BY seq))[1],
    array_agg(audit_log_id ORDER BY seq), string_agg(hash, ''::bytea ORDER BY seq)
  FROM (
    SELECT merchant_account_id, seq, audit_log_id, prev_hash, hash, run,
      (row_number() OVER (PARTITION BY merchant_account_id, run ORDER BY seq) - 1) / 1000 AS chunk
    FROM (
      SELECT *, count(*) FILTER (WHERE starts) OVER (PARTITION BY merchant_account_id ORDER BY seq) AS run
      FROM (
        SELECT l.*, coalesce(lag(seq) OVER w <> seq - 1 OR lag(hash) OVER w <> prev_hash, true) AS starts
        FROM audit_chain_links l
        WINDOW w AS (PARTITION BY merchant_account_id ORDER BY seq)
      ) AS marked
    ) AS runs
  ) AS chunks
  GROUP BY merchant_account_id, run, chunk;

DROP TABLE audit_chain_links;

-- Batches are never rewritten or removed (SV002, as audit_logs and the links were).
CREATE TRIGGER audit_chain_batches_append_only BEFORE UPDATE OR DELETE ON audit_chain_batches
  FOR EACH ROW EXECUTE FUNCTION svc_audit_append_only();
CREATE TRIGGER audit_chain_batches_no_truncate BEFORE TRUNCATE ON audit_chain_batches
  FOR EACH STATEMENT EXECUTE FUNCTION svc_audit_append_only();

-- The fork guard, whoever inserts: a batch continues its account's chain, at the place after the
-- newest batch's last and from its last hash (SV004). With the primary key it holds without the
-- sealer's lock too: two inserts that both read the same newest batch give the same first_seq, and
-- the second waits for the first and fails on the key. One index probe per batch.
CREATE FUNCTION svc_audit_batch_follows() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  last_seq bigint := 0;
  last_hash bytea := decode(repeat('00', 32), 'hex');
BEGIN
  SELECT first_seq + length(hashes) / 32 - 1, substring(hashes FROM length(hashes) - 31 FOR 32)
    INTO last_seq, last_hash
    FROM audit_chain_batches WHERE merchant_account_id = NEW.merchant_account_id ORDER BY first_seq DESC LIMIT 1;
  IF NOT FOUND THEN
    last_seq := 0;
    last_hash := decode(repeat('00', 32), 'hex');
  END IF;
  IF NEW.first_seq <> last_seq + 1 OR NEW.prev_hash <> last_hash THEN
    RAISE EXCEPTION USING ERRCODE = 'SV004', MESSAGE = format(
      'audit_chain_batches: a batch of %s must start at seq %s, after the hash of seq %s (got seq %s)',
      NEW.merchant_account_id, last_seq + 1, last_seq, NEW.first_seq);
  END IF;
  RETURN NEW;
END
$$;

CREATE TRIGGER audit_chain_batches_follow BEFORE INSERT ON audit_chain_batches
  FOR EACH ROW EXECUTE FUNCTION svc_audit_batch_follows();

-- The sealer of 0072, writing one batch row per account and call instead of a link row per entry;
-- the order, the hashes, the queue and the head are as before.
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
  FOR e IN SELECT a.* FROM audit_chain_pending p
      JOIN audit_logs a ON a.merchant_account_id = p.merchant_account_id AND a.id = p.audit_log_id
      WHERE p.merchant_account_id = account ORDER BY p.created_at, p.audit_log_id LIMIT max_entries LOOP
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
