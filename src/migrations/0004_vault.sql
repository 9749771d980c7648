-- The vault: per-merchant data keys (wrapped by the master key), stored cards, short-lived security codes.

CREATE TABLE vault_data_keys (
  merchant_account_id text NOT NULL REFERENCES merchant_accounts (id),
  id                  uuid NOT NULL,
  -- `encryption` keys encrypt card data; the `fingerprint` key makes card fingerprints (HMAC).
  purpose             text NOT NULL CHECK (purpose IN ('encryption', 'fingerprint')),
  wrapped_key         text NOT NULL,
  master_key_id       text NOT NULL,
  active              boolean NOT NULL DEFAULT true,
  created_at          timestamptz(3) NOT NULL DEFAULT now(),
  rewrapped_at        timestamptz(3),
  PRIMARY KEY (merchant_account_id, id)
);
-- One active key per merchant account and purpose.
CREATE UNIQUE INDEX vault_data_keys_active_idx ON vault_data_keys (merchant_account_id, purpose) WHERE active;
CREATE INDEX vault_data_keys_master_idx ON vault_data_keys (master_key_id);

CREATE TABLE payment_methods (
  merchant_account_id  text NOT NULL REFERENCES merchant_accounts (id),
  id                   uuid NOT NULL,
  method               text NOT NULL,
  status               text NOT NULL DEFAULT 'succeeded',
  buyer_id             uuid,
  external_identifier  text,
  scheme               text,
  card_type            text,
  bin                  text,
  last4                text,
  expiration_date      text,
  fingerprint          text,
  -- The card number, AES-256-GCM under the merchant's data key `number_key_id`.
  number_ciphertext    text,
  number_key_id        uuid,
  usage_count          integer NOT NULL DEFAULT 0,
  cit_usage_count      integer NOT NULL DEFAULT 0,
  last_used_at         timestamptz(3),
  cit_last_used_at     timestamptz(3),
  last_replaced_at     timestamptz(3),
  created_at           timestamptz(3) NOT NULL DEFAULT now(),
  updated_at           timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (merchant_account_id, id),
  -- Deleting a buyer detaches its stored methods (decision 0034).
  FOREIGN KEY (merchant_account_id, buyer_id) REFERENCES buyers (merchant_account_id, id) ON DELETE SET NULL (buyer_id)
);
CREATE INDEX payment_methods_created_idx ON payment_methods (merchant_account_id, created_at DESC, id DESC);
CREATE INDEX payment_methods_buyer_idx ON payment_methods (merchant_account_id, buyer_id, created_at DESC, id DESC);
CREATE INDEX payment_methods_external_idx ON payment_methods (merchant_account_id, external_identifier, created_at DESC, id DESC);
CREATE INDEX payment_methods_status_idx ON payment_methods (merchant_account_id, status, created_at DESC, id DESC);
CREATE INDEX payment_methods_fingerprint_idx ON payment_methods (merchant_account_id, fingerprint);

-- Security codes live only until they are used or expire; never in clear.
CREATE TABLE vault_security_codes (
  merchant_account_id text NOT NULL REFERENCES merchant_accounts (id),
  id                  uuid NOT NULL,
  -- What the code belongs to: a stored payment method or a checkout session.
  owner_type          text NOT NULL CHECK (owner_type IN ('payment-method', 'checkout-session')),
  owner_id            uuid NOT NULL,
  ciphertext          text NOT NULL,
  key_id              uuid NOT NULL,
  expires_at          timestamptz(3) NOT NULL,
  created_at          timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (merchant_account_id, id)
);
CREATE UNIQUE INDEX vault_security_codes_owner_idx ON vault_security_codes (merchant_account_id, owner_type, owner_id);
CREATE INDEX vault_security_codes_expires_idx ON vault_security_codes (expires_at);
