-- Network tokens of stored cards, issued by the simulated token service (decision 0038).

CREATE TABLE network_tokens (
  merchant_account_id  text NOT NULL REFERENCES merchant_accounts (id),
  id                   uuid NOT NULL,
  payment_method_id    uuid NOT NULL,
  status               text NOT NULL CHECK (status IN ('active', 'inactive', 'suspended', 'deleted')),
  -- The token number is card-equivalent data: AES-256-GCM under the merchant's data key
  -- `token_key_id`, bound to this row. Destroyed (null) once the token is deleted.
  token_ciphertext     text,
  token_key_id         uuid,
  token_last4          text NOT NULL,
  expiration_date      text NOT NULL CHECK (expiration_date ~ '^\d{2}/\d{2}$'),
  created_at           timestamptz(3) NOT NULL DEFAULT now(),
  updated_at           timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (merchant_account_id, id),
  FOREIGN KEY (merchant_account_id, payment_method_id) REFERENCES payment_methods (merchant_account_id, id) ON DELETE CASCADE,
  CHECK ((status = 'deleted') = (token_ciphertext IS NULL)),
  CHECK ((token_ciphertext IS NULL) = (token_key_id IS NULL))
);
-- At most one live (not deleted) token per payment method.
CREATE UNIQUE INDEX network_tokens_live_idx ON network_tokens (merchant_account_id, payment_method_id) WHERE status <> 'deleted';
CREATE INDEX network_tokens_payment_method_idx ON network_tokens (merchant_account_id, payment_method_id, created_at DESC, id DESC);
