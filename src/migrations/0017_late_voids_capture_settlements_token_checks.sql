-- Late authorization voids, one settlement per capture, and reconciliation of payment service
-- tokens (decisions 0053, 0054 and 0063).

-- The void sent for an authorization that arrived after the transaction was closed names that
-- authorization's attempt. At most one per attempt: a void job that runs twice finds the first.
ALTER TABLE transaction_attempts ADD COLUMN compensates_attempt_id uuid;
ALTER TABLE transaction_attempts ADD CONSTRAINT transaction_attempts_compensates_fk
  FOREIGN KEY (merchant_account_id, compensates_attempt_id) REFERENCES transaction_attempts (merchant_account_id, id);
CREATE UNIQUE INDEX transaction_attempts_compensates_idx ON transaction_attempts (merchant_account_id, compensates_attempt_id) WHERE compensates_attempt_id IS NOT NULL;

-- The capture (its attempt) a settlement records; null for a refund settlement and for the
-- settlement of a transaction's whole captured amount (authorize-and-capture, older rows).
ALTER TABLE settlements ADD COLUMN capture_attempt_id uuid;
-- One settlement per capture, per refund, and one of the whole captured amount.
DROP INDEX settlements_once_idx;
CREATE UNIQUE INDEX settlements_once_idx ON settlements (merchant_account_id, transaction_id, (coalesce(refund_id, capture_attempt_id, '00000000-0000-0000-0000-000000000000'::uuid)));

-- When reconciliation asks the provider about a token still `processing` (5 minutes, 1 hour, then daily).
ALTER TABLE payment_service_tokens ADD COLUMN next_check_at timestamptz(3);
ALTER TABLE payment_service_tokens ADD COLUMN checks integer NOT NULL DEFAULT 0;
UPDATE payment_service_tokens SET next_check_at = now() WHERE status = 'processing';
CREATE INDEX payment_service_tokens_open_idx ON payment_service_tokens (next_check_at) WHERE status = 'processing';
