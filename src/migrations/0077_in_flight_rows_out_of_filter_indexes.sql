-- Issue 57 (WAL per authorization), decision 0154: a transaction awaiting its connector's answer
-- is kept out of the filter indexes.
--
-- An authorization writes its row twice: phase 1 inserts it (`processing`) and commits before the
-- connector call, phase 2 writes the answer. The second write is not a HOT update (`status` and
-- `updated_at` are indexed), so every index of the table took two entries per authorization.
--
-- `intent_outcome IS NULL` now says "awaiting the connector's answer": phase 1 writes NULL, every
-- answer (and every stop before the connector) writes 'pending', 'succeeded' or 'failed'; the API
-- shows NULL as 'pending'. The filter indexes below only hold answered rows (`intent_outcome IS
-- NOT NULL`), so phase 1 adds no entry to them; the in-flight rows have one small index of their
-- own, transactions_in_flight_idx, whose entry turns dead at the answer. Readers that must see
-- in-flight rows (GET /transactions, reports) read two branches, answered and in flight.
--
-- Unchanged, full: the primary key (every lookup by id); transactions_psp_id_idx and
-- transactions_error_code_idx (their columns are null until the answer: no phase-1 entry to save;
-- a provider's webhook finds the row by its id); transactions_payment_link_idx (a payment link's
-- page reads its newest transaction, in flight or not); transactions_disputed_idx and
-- transactions_pending_review_idx (false at phase 1 but for review holds, which are rare).
--
-- Existing rows keep their values: a row inserted before this migration and still in flight has
-- 'pending', stays in the filter indexes and is read by the answered branch only (the branches are
-- split by `intent_outcome IS NULL`, so no row is read twice).
ALTER TABLE transactions ALTER COLUMN intent_outcome DROP NOT NULL;

DROP INDEX transactions_list_idx;
DROP INDEX transactions_created_idx;
DROP INDEX transactions_status_idx;
DROP INDEX transactions_buyer_idx;
DROP INDEX transactions_buyer_ext_idx;
DROP INDEX transactions_buyer_email_idx;
DROP INDEX transactions_external_idx;
DROP INDEX transactions_payment_method_idx;
DROP INDEX transactions_payment_service_idx;
DROP INDEX transactions_checkout_session_idx;
DROP INDEX transactions_fingerprint_idx;
DROP INDEX transactions_metadata_idx;
DROP INDEX transactions_ip_idx;
DROP INDEX transactions_bin_idx;
DROP INDEX transactions_label_idx;
DROP INDEX transactions_buyer_name_idx;

CREATE INDEX transactions_list_idx ON transactions (merchant_account_id, updated_at DESC, id DESC) WHERE intent_outcome IS NOT NULL;
CREATE INDEX transactions_created_idx ON transactions (merchant_account_id, created_at DESC, id DESC) WHERE intent_outcome IS NOT NULL;
CREATE INDEX transactions_status_idx ON transactions (merchant_account_id, status, updated_at DESC, id DESC) WHERE intent_outcome IS NOT NULL;
CREATE INDEX transactions_buyer_idx ON transactions (merchant_account_id, buyer_id, updated_at DESC)
  WHERE buyer_id IS NOT NULL AND intent_outcome IS NOT NULL;
CREATE INDEX transactions_buyer_ext_idx ON transactions (merchant_account_id, buyer_external_identifier)
  WHERE buyer_external_identifier IS NOT NULL AND intent_outcome IS NOT NULL;
CREATE INDEX transactions_buyer_email_idx ON transactions (merchant_account_id, lower(buyer_email_address))
  WHERE buyer_email_address IS NOT NULL AND intent_outcome IS NOT NULL;
CREATE INDEX transactions_external_idx ON transactions (merchant_account_id, external_identifier)
  WHERE external_identifier IS NOT NULL AND intent_outcome IS NOT NULL;
CREATE INDEX transactions_payment_method_idx ON transactions (merchant_account_id, payment_method_id)
  WHERE payment_method_id IS NOT NULL AND intent_outcome IS NOT NULL;
CREATE INDEX transactions_payment_service_idx ON transactions (merchant_account_id, payment_service_id, updated_at DESC)
  WHERE payment_service_id IS NOT NULL AND intent_outcome IS NOT NULL;
CREATE INDEX transactions_checkout_session_idx ON transactions (merchant_account_id, checkout_session_id)
  WHERE checkout_session_id IS NOT NULL AND intent_outcome IS NOT NULL;
CREATE INDEX transactions_fingerprint_idx ON transactions (merchant_account_id, card_fingerprint)
  WHERE card_fingerprint IS NOT NULL AND intent_outcome IS NOT NULL;
CREATE INDEX transactions_metadata_idx ON transactions USING gin (metadata jsonb_path_ops)
  WHERE metadata IS NOT NULL AND intent_outcome IS NOT NULL;
CREATE INDEX transactions_ip_idx ON transactions (merchant_account_id, ip_address)
  WHERE ip_address IS NOT NULL AND intent_outcome IS NOT NULL;
CREATE INDEX transactions_bin_idx ON transactions (merchant_account_id, (payment_method->>'bin') text_pattern_ops)
  WHERE payment_method IS NOT NULL AND intent_outcome IS NOT NULL;
CREATE INDEX transactions_label_idx ON transactions (merchant_account_id, (payment_method->>'label'))
  WHERE payment_method IS NOT NULL AND intent_outcome IS NOT NULL;
CREATE INDEX transactions_buyer_name_idx ON transactions (merchant_account_id, lower(buyer->>'display_name'))
  WHERE buyer IS NOT NULL AND intent_outcome IS NOT NULL;

-- The rows awaiting an answer: few at any time, read newest update first by the in-flight branch.
CREATE INDEX transactions_in_flight_idx ON transactions (merchant_account_id, updated_at DESC, id DESC)
  WHERE intent_outcome IS NULL;
