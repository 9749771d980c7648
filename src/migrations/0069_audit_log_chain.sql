-- A tamper-evident audit log (issue 56, decision 0141): each merchant account's entries form a hash
-- chain. Entry n carries its place `seq` (1, 2, ...), the hash of entry n-1 (`prev_hash`, 32 zero
-- bytes for entry 1) and its own `hash` = SHA-256(prev_hash || canonical encoding of its content).
-- A trigger appends: every writer (recordAudit, write batches, grouped commits, plain SQL) gets
-- its place in the transaction of the change it records, and a lock per account, held to commit,
-- orders concurrent appends so the chain never forks (the unique index on the place guards it too). `svc audit verify` recomputes the chain
-- (src/modules/audit-logs/audit-chain.ts holds the same encoding, and must stay in step with it).

ALTER TABLE audit_logs ADD COLUMN seq bigint, ADD COLUMN prev_hash bytea, ADD COLUMN hash bytea;

-- One length-prefixed field: `<bytes>:<text>`, or `-` for NULL (no value can fake a boundary).
CREATE FUNCTION svc_audit_field(v text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN v IS NULL THEN '-' ELSE octet_length(v)::text || ':' || v END
$$;

-- The canonical encoding of an entry (version 1): every column a client sees or that traces the
-- entry, in a fixed order, the time as whole microseconds since the epoch (exact on both databases,
-- whatever the column's precision).
CREATE FUNCTION svc_audit_canonical(e audit_logs) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  -- plpgsql, not sql: a call from the trigger then reuses its plan instead of planning each time.
  RETURN 'svc-audit-v1'
    || svc_audit_field(e.merchant_account_id)
    || svc_audit_field(e.seq::text)
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

-- Each account's head: the newest entry's place and hash. A removal at the chain's end shows against it.
CREATE TABLE audit_chain_heads (
  merchant_account_id text PRIMARY KEY REFERENCES merchant_accounts (id),
  seq                 bigint NOT NULL,
  hash                bytea NOT NULL,
  updated_at          timestamptz(3) NOT NULL DEFAULT now()
);

-- Entries written before this migration join the chain in (created_at, id) order: the chain covers
-- the whole log from its first entry (they are as trustworthy as the database was until now).
DO $$
DECLARE
  e audit_logs;
  account text := NULL;
  place bigint := 0;
  previous bytea;
BEGIN
  FOR e IN SELECT * FROM audit_logs ORDER BY merchant_account_id, created_at, id LOOP
    IF account IS DISTINCT FROM e.merchant_account_id THEN
      IF account IS NOT NULL THEN
        INSERT INTO audit_chain_heads (merchant_account_id, seq, hash) VALUES (account, place, previous);
      END IF;
      account := e.merchant_account_id;
      place := 0;
      previous := decode(repeat('00', 32), 'hex');
    END IF;
    place := place + 1;
    e.seq := place;
    e.prev_hash := previous;
    e.hash := sha256(previous || convert_to(svc_audit_canonical(e), 'UTF8'));
    UPDATE audit_logs SET seq = e.seq, prev_hash = e.prev_hash, hash = e.hash
      WHERE merchant_account_id = e.merchant_account_id AND id = e.id;
    previous := e.hash;
  END LOOP;
  IF account IS NOT NULL THEN
    INSERT INTO audit_chain_heads (merchant_account_id, seq, hash) VALUES (account, place, previous);
  END IF;
END
$$;

ALTER TABLE audit_logs ALTER COLUMN seq SET NOT NULL, ALTER COLUMN prev_hash SET NOT NULL, ALTER COLUMN hash SET NOT NULL;
-- The fork guard: two appends can never both take the same place. Also the verifier's keyset order.
CREATE UNIQUE INDEX audit_logs_seq_key ON audit_logs (merchant_account_id, seq);

-- Appends take turns per account on a transaction-level advisory lock (two-key space 0x5a0d17:
-- audit chains; the key is the account id's hash, so two accounts rarely share one, and then only
-- wait). Once it is held, the newest entry, committed or written earlier in this transaction or
-- statement, is the predecessor: a statement in a VOLATILE trigger function sees them all.
CREATE FUNCTION svc_audit_append() RETURNS trigger
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  place bigint;
  previous bytea;
BEGIN
  PERFORM pg_advisory_xact_lock(5901591, hashtext(NEW.merchant_account_id));
  SELECT seq, hash INTO place, previous FROM audit_logs
    WHERE merchant_account_id = NEW.merchant_account_id ORDER BY seq DESC LIMIT 1;
  IF NOT FOUND THEN
    place := 0;
    previous := decode(repeat('00', 32), 'hex');
  END IF;
  NEW.seq := place + 1;
  NEW.prev_hash := previous;
  NEW.hash := sha256(previous || convert_to(svc_audit_canonical(NEW), 'UTF8'));
  RETURN NEW;
END
$$;

CREATE TRIGGER audit_logs_chain BEFORE INSERT ON audit_logs FOR EACH ROW EXECUTE FUNCTION svc_audit_append();

-- The head moves once per statement (not per row: a row updated many times in one transaction
-- leaves a chain of versions each later update walks), to the statement's newest entry per account.
CREATE FUNCTION svc_audit_move_heads() RETURNS trigger
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  INSERT INTO audit_chain_heads (merchant_account_id, seq, hash)
    SELECT DISTINCT ON (merchant_account_id) merchant_account_id, seq, hash
    FROM appended ORDER BY merchant_account_id, seq DESC
  ON CONFLICT (merchant_account_id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash, updated_at = now();
  RETURN NULL;
END
$$;

CREATE TRIGGER audit_logs_heads AFTER INSERT ON audit_logs REFERENCING NEW TABLE AS appended
  FOR EACH STATEMENT EXECUTE FUNCTION svc_audit_move_heads();

-- The application never rewrites or removes an entry: a statement that tries fails. (An owner of
-- the table can drop this trigger: the chain and its anchors detect what it would then do.)
CREATE FUNCTION svc_audit_append_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION USING ERRCODE = 'SV002', MESSAGE = 'audit_logs is append-only';
END
$$;

CREATE TRIGGER audit_logs_append_only BEFORE UPDATE OR DELETE ON audit_logs
  FOR EACH ROW EXECUTE FUNCTION svc_audit_append_only();
CREATE TRIGGER audit_logs_no_truncate BEFORE TRUNCATE ON audit_logs
  FOR EACH STATEMENT EXECUTE FUNCTION svc_audit_append_only();
