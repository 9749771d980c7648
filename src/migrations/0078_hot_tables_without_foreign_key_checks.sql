-- Issue 57 (CPU and WAL per authorization), decision 0155: the five foreign keys an authorization
-- checks are dropped, and the two parents they pointed to can no longer lose or re-key a row.
--
-- Each check was a query run by the RI trigger and a FOR KEY SHARE lock on the parent row: the
-- first lock a database transaction takes on a row logs a 54-byte Heap:LOCK record, and concurrent
-- authorizations of one merchant all lock its merchant_accounts row (MultiXacts, turns on one
-- buffer). An authorization wrote, in phase 1 (one statement), transactions -> merchant_accounts
-- and transaction_attempts -> transactions; in phase 2 (one statement), transaction_history ->
-- transactions, audit_logs -> merchant_accounts, and the audit trigger's audit_chain_pending ->
-- merchant_accounts.
--
-- What the keys gave holds by construction: the merchant account of every such row is the request's
-- (authentication checked it exists), a transaction's attempts and history rows are written in the
-- statement that inserts it or after it was read in the request (a guarded update or a locked
-- read, scoped by the merchant account), and a parent never goes away: the triggers below refuse
-- DELETE, TRUNCATE and a change of the key of merchant_accounts and transactions, so no row
-- written against one can lose it later. Every other foreign key stays (low volume, or written in
-- batches: audit_chain_links and audit_chain_heads by the sealer).
ALTER TABLE transactions DROP CONSTRAINT transactions_merchant_account_id_fkey;
ALTER TABLE transaction_attempts DROP CONSTRAINT transaction_attempts_merchant_account_id_transaction_id_fkey;
ALTER TABLE transaction_history DROP CONSTRAINT transaction_history_transaction_fkey;
ALTER TABLE audit_logs DROP CONSTRAINT audit_logs_merchant_account_id_fkey;
ALTER TABLE audit_chain_pending DROP CONSTRAINT audit_chain_pending_merchant_account_id_fkey;

-- SQLSTATE SV003 (SV001: a guarded statement's row moved; SV002: an append-only table). Statement
-- triggers, not row triggers: nothing per row on any write, and a BEFORE UPDATE row trigger would
-- lock each updated row first (one more Heap:LOCK record per update). `UPDATE OF` fires only for a
-- statement that names a key column in its SET list, which no writer does.
CREATE FUNCTION svc_refuse_parent_removal() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION USING ERRCODE = 'SV003',
    MESSAGE = format('%s rows are never deleted, truncated or given another key (%s refused)', TG_TABLE_NAME, TG_OP);
END
$$;

CREATE TRIGGER merchant_accounts_kept BEFORE DELETE OR TRUNCATE OR UPDATE OF id ON merchant_accounts
  FOR EACH STATEMENT EXECUTE FUNCTION svc_refuse_parent_removal();
CREATE TRIGGER transactions_kept BEFORE DELETE OR TRUNCATE OR UPDATE OF merchant_account_id, id ON transactions
  FOR EACH STATEMENT EXECUTE FUNCTION svc_refuse_parent_removal();
