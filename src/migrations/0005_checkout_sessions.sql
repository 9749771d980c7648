-- Checkout sessions: a short-lived checkout context whose id is the credential of its fields
-- endpoint, and the card data a browser posted to it (decision 0041).

CREATE TABLE checkout_sessions (
  merchant_account_id  text NOT NULL REFERENCES merchant_accounts (id),
  id                   uuid NOT NULL,
  cart_items           jsonb,
  metadata             jsonb,
  buyer                jsonb,
  airline              jsonb,
  amount               bigint,
  currency             text,
  payment_service_id   text,
  expires_at           timestamptz(3) NOT NULL,
  -- The card data of the fields endpoint: `card` (number held here) or `id` (a stored method).
  method               text CHECK (method IN ('card', 'id')),
  payment_method_id    uuid,
  scheme               text,
  bin                  text,
  last4                text,
  expiration_date      text,
  fingerprint          text,
  -- The card number, AES-256-GCM under the merchant's data key, bound to this row.
  number_ciphertext    text,
  number_key_id        uuid,
  created_at           timestamptz(3) NOT NULL DEFAULT now(),
  updated_at           timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (merchant_account_id, id),
  FOREIGN KEY (merchant_account_id, payment_method_id) REFERENCES payment_methods (merchant_account_id, id) ON DELETE SET NULL (payment_method_id)
);
-- The fields endpoint finds a session by its id alone (the id is the credential).
CREATE INDEX checkout_sessions_id_idx ON checkout_sessions (id);
-- The purge job finds expired sessions that still hold card data.
CREATE INDEX checkout_sessions_card_expiry_idx ON checkout_sessions (expires_at) WHERE method IS NOT NULL;
