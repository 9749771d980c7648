-- Digital wallets (POST /digital-wallets ...): one registration per merchant account and provider,
-- with the merchant's own wallet keys sealed by the vault. See docs/digital-wallets.md.

CREATE TABLE digital_wallets (
  merchant_account_id       text NOT NULL REFERENCES merchant_accounts (id),
  id                        uuid NOT NULL,
  provider                  text NOT NULL CHECK (provider IN ('apple', 'google', 'click-to-pay', 'paze')),
  merchant_name             text NOT NULL,
  merchant_display_name     text,
  merchant_url              text,
  merchant_country_code     text,
  merchant_category_code    text,
  address                   jsonb,
  extra_configuration       jsonb,
  domain_names              text[] NOT NULL DEFAULT '{}',
  -- Click to Pay: the digital payment application the wallet was registered as.
  fields                    jsonb,
  -- Apple Pay merchant identifier (key derivation of tokens, merchant sessions).
  apple_merchant_identifier text,
  -- Google Pay merchant id: tokens decrypted with the wallet's key are made for merchant:<id>.
  google_merchant_id        text,
  -- Not secret: whether the sealed secrets hold a payment processing key.
  payment_processing_key_configured boolean NOT NULL DEFAULT false,
  -- Not secret: when the merchant identity certificate (Apple, mutual TLS) expires; null without one.
  identity_certificate_expires_at timestamptz(3),
  -- Vault-sealed JSON of the wallet's secrets (payment processing private key, merchant identity
  -- certificate and key), bound to this row; null when the merchant configured none.
  secrets_ciphertext        text,
  secrets_key_id            text,
  created_at                timestamptz(3) NOT NULL DEFAULT now(),
  updated_at                timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (merchant_account_id, id)
);
-- One wallet per provider and merchant account: a concurrent second registration stops here. Also
-- the index of the list (ordered by provider) and of the lookups by provider (payments, sessions).
CREATE UNIQUE INDEX digital_wallets_provider_key ON digital_wallets (merchant_account_id, provider);
