-- Simulated 3DS outcomes of the sandbox (decision 0049). A scenario's
-- conditions are plain columns (null: not a condition) so the transaction engine's lookup is
-- answered by indexes; the card number is never stored, only its vault fingerprint and a mask.

CREATE TABLE three_ds_scenarios (
  merchant_account_id  text NOT NULL REFERENCES merchant_accounts (id),
  id                   uuid NOT NULL,
  first_name           text,
  last_name            text,
  -- As given (returned as given); matched case-insensitively.
  email_address        text,
  amount               bigint,
  external_identifier  text,
  -- HMAC of the card number under the merchant's fingerprint key, and its first 6 + last 4 digits.
  card_fingerprint     text,
  card_number_masked   text,
  outcome              jsonb NOT NULL,
  created_at           timestamptz(3) NOT NULL DEFAULT now(),
  updated_at           timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (merchant_account_id, id),
  CHECK ((card_fingerprint IS NULL) = (card_number_masked IS NULL)),
  -- A scenario without conditions would answer for every transaction of the account.
  CHECK (num_nonnulls(first_name, last_name, email_address, amount, external_identifier, card_fingerprint) > 0)
);
-- The list, newest first (keyset pagination).
CREATE INDEX three_ds_scenarios_keyset_idx ON three_ds_scenarios (merchant_account_id, created_at DESC, id DESC);
-- The matcher's candidates: every scenario that can match a transaction has its amount, or its
-- card, or neither of the two as a condition; one index per case, so a lookup reads only those.
CREATE INDEX three_ds_scenarios_amount_idx ON three_ds_scenarios (merchant_account_id, amount) WHERE amount IS NOT NULL;
CREATE INDEX three_ds_scenarios_card_idx ON three_ds_scenarios (merchant_account_id, card_fingerprint) WHERE card_fingerprint IS NOT NULL;
CREATE INDEX three_ds_scenarios_other_idx ON three_ds_scenarios (merchant_account_id) WHERE amount IS NULL AND card_fingerprint IS NULL;

-- Checkout sessions (vault follow-up): the purge job deletes sessions a grace period after they
-- expire, whether or not they held card data; this index finds them without a full scan.
CREATE INDEX checkout_sessions_expiry_idx ON checkout_sessions (expires_at);
