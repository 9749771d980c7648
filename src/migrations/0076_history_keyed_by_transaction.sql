-- Issue 57 (WAL per authorization), decision 0150: a transaction's history is stored as one row
-- per write, keyed by the transaction, and read as before, one row per event.
--
-- transaction_events held a row per event with two indexes: the primary key (merchant_account_id,
-- id), which no query reads (an event is never looked up by its id, nothing references it), and
-- transaction_events_txn_idx (merchant_account_id, transaction_id, created_at DESC, id DESC), which
-- every reader uses. An authorization wrote two rows (its status change and its connector call,
-- at one time) and four index entries: 1,050 bytes of WAL (`npm run bench:wal`).
--
-- Now transaction_history holds one row per write: its first event in the columns, the write's
-- further events (same transaction, same created_at) in `more` as [{id, name, context}], and one
-- index, the primary key (merchant_account_id, transaction_id, created_at, id). The view
-- transaction_events expands the rows into events, with their ids, names, contexts and times:
-- every reader (GET /transactions/{id}/events and its keyset pages, the anti-fraud reports' trace)
-- reads it as it read the table. A B-tree is read backwards as fast as forwards, so a page, newest
-- first, is a range scan of the key followed by an incremental sort by id within one created_at.
--
-- Existing rows stay as they are, each a write of one event (`more` null): the new key contains
-- the old one, so it is unique too, and the view shows them unchanged.
ALTER TABLE transaction_events DROP CONSTRAINT transaction_events_pkey;
DROP INDEX transaction_events_txn_idx;
ALTER TABLE transaction_events RENAME TO transaction_history;
ALTER TABLE transaction_history
  RENAME CONSTRAINT transaction_events_merchant_account_id_transaction_id_fkey TO transaction_history_transaction_fkey;
ALTER TABLE transaction_history ADD COLUMN more jsonb;
ALTER TABLE transaction_history ADD CONSTRAINT transaction_history_pkey
  PRIMARY KEY (merchant_account_id, transaction_id, created_at, id);

CREATE VIEW transaction_events AS
  SELECT h.merchant_account_id, e.id, h.transaction_id, e.name, e.context, h.created_at
  FROM transaction_history h
  CROSS JOIN LATERAL (
    SELECT h.id, h.name, h.context
    UNION ALL
    SELECT (m ->> 'id')::uuid, m ->> 'name', m -> 'context' FROM jsonb_array_elements(h.more) AS m
  ) AS e;
