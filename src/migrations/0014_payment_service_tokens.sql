-- Gateway tokens of stored cards at payment services (decision 0063).

CREATE TABLE payment_service_tokens (
  merchant_account_id  text NOT NULL REFERENCES merchant_accounts (id),
  id                   uuid NOT NULL,
  payment_method_id    uuid NOT NULL,
  payment_service_id   uuid NOT NULL,
  -- `processing` is recorded before the connector call; it stays so when the outcome is unknown (timeout).
  status               text NOT NULL CHECK (status IN ('processing', 'buyer_approval_required', 'succeeded', 'failed')),
  -- The provider's token is a credential at the provider: AES-256-GCM under the merchant's data
  -- key `token_key_id`, bound to this row.
  token_ciphertext     text,
  token_key_id         uuid,
  approval_url         text,
  -- Our standardized error code of a failed tokenization (diagnostics; not part of the resource).
  error_code           text,
  created_at           timestamptz(3) NOT NULL DEFAULT now(),
  updated_at           timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (merchant_account_id, id),
  FOREIGN KEY (merchant_account_id, payment_method_id) REFERENCES payment_methods (merchant_account_id, id) ON DELETE CASCADE,
  FOREIGN KEY (merchant_account_id, payment_service_id) REFERENCES payment_services (merchant_account_id, id) ON DELETE CASCADE,
  CHECK ((token_ciphertext IS NULL) = (token_key_id IS NULL)),
  CHECK (status <> 'succeeded' OR token_ciphertext IS NOT NULL)
);
-- One token per (payment method, payment service); it also serves the `payment_service_id` filter.
CREATE UNIQUE INDEX payment_service_tokens_pair_idx ON payment_service_tokens (merchant_account_id, payment_method_id, payment_service_id);
CREATE INDEX payment_service_tokens_payment_method_idx ON payment_service_tokens (merchant_account_id, payment_method_id, created_at DESC, id DESC);
