-- Interactive sandbox 3DS challenges (decision 0061): a challenged card
-- transaction waits for the buyer, and the card it will be authorized with is held here, sealed
-- by the vault, only until the challenge ends.

CREATE TABLE three_ds_challenges (
  merchant_account_id  text NOT NULL REFERENCES merchant_accounts (id),
  -- The id in the challenge page's URL (the buyer opens it without a token).
  id                   uuid NOT NULL,
  transaction_id       uuid NOT NULL,
  status               text NOT NULL CHECK (status IN ('pending', 'completed', 'failed', 'expired', 'canceled')),
  -- What "complete" and "fail" yield (the 3DS server's decisions, fixed when the challenge starts).
  outcomes             jsonb NOT NULL,
  -- `store: true` of the request: the card is vaulted once authorized, as without a challenge.
  store                boolean NOT NULL DEFAULT false,
  -- A raw card only (a stored card is read from the vault again): its number, AES-256-GCM under
  -- the merchant's data key `number_key_id`, bound to this row. Its security code, if any, is held
  -- in vault_security_codes (owner `three-ds-challenge`) with the same expiry.
  number_ciphertext    text,
  number_key_id        uuid,
  expiration_date      text,
  expires_at           timestamptz(3) NOT NULL,
  created_at           timestamptz(3) NOT NULL DEFAULT now(),
  updated_at           timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (merchant_account_id, id),
  FOREIGN KEY (merchant_account_id, transaction_id) REFERENCES transactions (merchant_account_id, id) ON DELETE CASCADE,
  CHECK ((number_ciphertext IS NULL) = (number_key_id IS NULL)),
  -- Card data never outlives the challenge.
  CHECK (status = 'pending' OR (number_ciphertext IS NULL AND expiration_date IS NULL))
);
CREATE UNIQUE INDEX three_ds_challenges_transaction_idx ON three_ds_challenges (merchant_account_id, transaction_id);
-- The timeout sweep reads pending challenges by expiry.
CREATE INDEX three_ds_challenges_pending_idx ON three_ds_challenges (expires_at) WHERE status = 'pending';

-- A challenge holds the security code for its lifetime at most.
ALTER TABLE vault_security_codes DROP CONSTRAINT vault_security_codes_owner_type_check;
ALTER TABLE vault_security_codes ADD CONSTRAINT vault_security_codes_owner_type_check CHECK (owner_type IN ('payment-method', 'checkout-session', 'three-ds-challenge'));
