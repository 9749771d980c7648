-- The audit log's hash chain is linked after commit (decision 0145, partly superseding 0141): an
-- entry is still written in its change's transaction, with no lock and no chain work there; a
-- sealer in every server process links the committed entries about a second later, in batches,
-- under a lock per merchant account. audit_logs rows are never updated: each link is a row of
-- audit_chain_links, which is insert-only too. The encoding (svc-audit-v1) and every hash already
-- written are unchanged, so the anchors written before this migration still verify.

-- No entry is written while the chain moves (reads go on): one committed after the copy below
-- and before the queue trigger exists would be in neither the links nor the queue.
LOCK TABLE audit_logs IN EXCLUSIVE MODE;

-- An entry's place in its account's chain: the previous entry's hash and its own (SHA-256 of
-- prev_hash and the entry's canonical encoding, which includes seq). The primary key is the fork
-- guard (one entry per place), the unique index the guard against linking an entry twice.
CREATE TABLE audit_chain_links (
  merchant_account_id text NOT NULL REFERENCES merchant_accounts (id),
  seq                 bigint NOT NULL,
  audit_log_id        uuid NOT NULL,
  prev_hash           bytea NOT NULL,
  hash                bytea NOT NULL,
  PRIMARY KEY (merchant_account_id, seq)
);
CREATE UNIQUE INDEX audit_chain_links_entry_key ON audit_chain_links (merchant_account_id, audit_log_id);

-- Committed entries not linked yet. A row is written with its entry (so a rollback leaves neither)
-- and removed in the transaction that links the entry: an entry whose transaction commits late is
-- still found, whatever its created_at. The key is the sealing order, so a batch reads its own
-- rows only, however long the queue (a backlog drains in linear time).
CREATE TABLE audit_chain_pending (
  merchant_account_id text NOT NULL REFERENCES merchant_accounts (id),
  created_at          timestamptz(3) NOT NULL,
  audit_log_id        uuid NOT NULL,
  PRIMARY KEY (merchant_account_id, created_at, audit_log_id)
);

-- The chain as migration 0069's trigger built it moves over as it is: no hash is recomputed.
INSERT INTO audit_chain_links (merchant_account_id, seq, audit_log_id, prev_hash, hash)
  SELECT merchant_account_id, seq, id, prev_hash, hash FROM audit_logs;

-- No lock and no chain work in the writer's transaction any more.
DROP TRIGGER audit_logs_chain ON audit_logs;
DROP TRIGGER audit_logs_heads ON audit_logs;
DROP FUNCTION svc_audit_append();
DROP FUNCTION svc_audit_move_heads();
DROP FUNCTION svc_audit_canonical(audit_logs);
DROP INDEX audit_logs_seq_key;
ALTER TABLE audit_logs DROP COLUMN seq, DROP COLUMN prev_hash, DROP COLUMN hash;

-- The canonical encoding, version 1, exactly as migration 0069 wrote it; the place is now an
-- argument (it lives in the link), not a column of the entry.
CREATE FUNCTION svc_audit_canonical(e audit_logs, place bigint) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  RETURN 'svc-audit-v1'
    || svc_audit_field(e.merchant_account_id)
    || svc_audit_field(place::text)
    || svc_audit_field(e.id::text)
    || svc_audit_field(e.action)
    || svc_audit_field(e.resource_type)
    || svc_audit_field(e.resource_id)
    || svc_audit_field(e.resource_name)
    || svc_audit_field(e.user_id)
    || svc_audit_field(e.user_name)
    || svc_audit_field(e.user_email_address)
    || svc_audit_field(CASE WHEN e.user_is_staff THEN 'true' ELSE 'false' END)
    || svc_audit_field(e.operation_id)
    || svc_audit_field(e.request_id)
    || svc_audit_field((extract(epoch FROM e.created_at) * 1000000)::bigint::text);
END
$$;

-- Every insert statement queues its entries, once per statement, from the transition table.
CREATE FUNCTION svc_audit_queue() RETURNS trigger
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  INSERT INTO audit_chain_pending (merchant_account_id, created_at, audit_log_id)
    SELECT merchant_account_id, created_at, id FROM appended;
  RETURN NULL;
END
$$;

CREATE TRIGGER audit_logs_queue AFTER INSERT ON audit_logs REFERENCING NEW TABLE AS appended
  FOR EACH STATEMENT EXECUTE FUNCTION svc_audit_queue();

-- Links are never rewritten or removed either (the same SV002 as audit_logs, naming the table).
CREATE OR REPLACE FUNCTION svc_audit_append_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION USING ERRCODE = 'SV002', MESSAGE = TG_TABLE_NAME || ' is append-only';
END
$$;

CREATE TRIGGER audit_chain_links_append_only BEFORE UPDATE OR DELETE ON audit_chain_links
  FOR EACH ROW EXECUTE FUNCTION svc_audit_append_only();
CREATE TRIGGER audit_chain_links_no_truncate BEFORE TRUNCATE ON audit_chain_links
  FOR EACH STATEMENT EXECUTE FUNCTION svc_audit_append_only();

-- Links up to max_entries queued entries of one account, in (created_at, id) order, after its
-- newest link; the caller holds the account's lock. A VOLATILE function: each statement sees what
-- committed before it, so the newest link and the queue are read after the lock was granted.
CREATE FUNCTION svc_audit_seal_account(account text, max_entries int) RETURNS int
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  e audit_logs;
  place bigint;
  previous bytea;
  places bigint[] := '{}';
  ids uuid[] := '{}';
  stamps timestamptz[] := '{}';
  prevs bytea[] := '{}';
  hashes bytea[] := '{}';
BEGIN
  SELECT seq, hash INTO place, previous FROM audit_chain_links
    WHERE merchant_account_id = account ORDER BY seq DESC LIMIT 1;
  IF NOT FOUND THEN
    place := 0;
    previous := decode(repeat('00', 32), 'hex');
  END IF;
  FOR e IN SELECT a.* FROM audit_chain_pending p
      JOIN audit_logs a ON a.merchant_account_id = p.merchant_account_id AND a.id = p.audit_log_id
      WHERE p.merchant_account_id = account ORDER BY p.created_at, p.audit_log_id LIMIT max_entries LOOP
    place := place + 1;
    places := places || place;
    ids := ids || e.id;
    stamps := stamps || e.created_at;
    prevs := prevs || previous;
    previous := sha256(previous || convert_to(svc_audit_canonical(e, place), 'UTF8'));
    hashes := hashes || previous;
  END LOOP;
  IF cardinality(ids) = 0 THEN
    RETURN 0;
  END IF;
  INSERT INTO audit_chain_links (merchant_account_id, seq, audit_log_id, prev_hash, hash)
    SELECT account, s, i, p, h FROM unnest(places, ids, prevs, hashes) AS t(s, i, p, h);
  -- Exactly the rows linked: one whose transaction committed meanwhile waits for the next batch.
  DELETE FROM audit_chain_pending p USING unnest(stamps, ids) AS t(c, i)
    WHERE p.merchant_account_id = account AND p.created_at = t.c AND p.audit_log_id = t.i;
  INSERT INTO audit_chain_heads (merchant_account_id, seq, hash) VALUES (account, place, previous)
  ON CONFLICT (merchant_account_id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash, updated_at = now();
  RETURN cardinality(ids);
END
$$;

-- Links queued entries, up to max_entries in all, account by account, and returns how many. The lock per account is the two-key advisory lock of migration 0069
-- (0x5a0d17, the account id's hash), held to commit. Without `wait` (each process's periodic
-- sealer) an account another sealer holds is skipped, the longest-waiting accounts first; with it
-- (sealing on demand, on close) each lock is waited for, in key order, so two waiting sealers
-- never wait for each other in a cycle.
CREATE FUNCTION svc_audit_seal(max_entries int, wait boolean) RETURNS int
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  account text;
  sealed int := 0;
BEGIN
  -- The accounts with queued entries and each one's oldest, one index probe per account (a skip
  -- scan): a backlog is not read whole for every batch.
  FOR account IN WITH RECURSIVE queued AS (
        (SELECT merchant_account_id, created_at FROM audit_chain_pending
          ORDER BY merchant_account_id, created_at, audit_log_id LIMIT 1)
        UNION ALL
        SELECT n.merchant_account_id, n.created_at FROM queued q, LATERAL (
          SELECT merchant_account_id, created_at FROM audit_chain_pending p
          WHERE p.merchant_account_id > q.merchant_account_id
          ORDER BY merchant_account_id, created_at, audit_log_id LIMIT 1) n
      )
      SELECT merchant_account_id FROM queued
      ORDER BY CASE WHEN wait THEN NULL ELSE created_at END, hashtext(merchant_account_id), merchant_account_id LOOP
    EXIT WHEN sealed >= max_entries;
    IF wait THEN
      PERFORM pg_advisory_xact_lock(5901591, hashtext(account));
    ELSIF NOT pg_try_advisory_xact_lock(5901591, hashtext(account)) THEN
      CONTINUE;
    END IF;
    sealed := sealed + svc_audit_seal_account(account, max_entries - sealed);
  END LOOP;
  RETURN sealed;
END
$$;
