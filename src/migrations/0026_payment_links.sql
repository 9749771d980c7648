-- Payment links (POST /payment-links) and the hosted page a buyer pays them on
-- (docs/payment-links.md). A link is paid at most once: `status` moves active → processing while a
-- payment through it is in flight, then completed (paid) or back to active (declined); expired by
-- POST .../expire, by the expire-payment-links job or on read once expires_at has passed.
CREATE TABLE payment_links (
  merchant_account_id                text NOT NULL REFERENCES merchant_accounts (id),
  -- A random UUID (v4, 122 random bits), not v7: the id is the secret in the page's URL.
  id                                 uuid NOT NULL,
  status                             text NOT NULL CHECK (status IN ('active', 'processing', 'completed', 'expired')),
  amount                             bigint NOT NULL CHECK (amount >= 0 AND amount <= 99999999),
  currency                           text NOT NULL,
  country                            text NOT NULL,
  intent                             text NOT NULL CHECK (intent IN ('authorize', 'capture')),
  payment_source                     text NOT NULL,
  store                              boolean NOT NULL DEFAULT false,
  expires_at                         timestamptz(3) NOT NULL,
  locale                             text,
  merchant_name                      text,
  merchant_url                       text,
  merchant_banner_url                text,
  merchant_color                     text,
  merchant_message                   text,
  merchant_terms_and_conditions_url  text,
  merchant_favicon_url               text,
  external_identifier                text,
  statement_descriptor               jsonb,
  return_url                         text,
  cart_items                         jsonb,
  metadata                           jsonb,
  -- A guest buyer as given, or a copy of the stored buyer's summary (buyer_id); personal data.
  buyer                              jsonb,
  buyer_id                           uuid,
  shipping_details                   jsonb,
  installment_count                  integer,
  connection_options                 jsonb,
  -- The payment made through the link: the one in flight (processing) or the one that paid it (completed).
  transaction_id                     uuid,
  -- When the link last became `processing`; a payment that never recorded its transaction is
  -- given up after a while (docs/payment-links.md, "Lifecycle").
  processing_since                   timestamptz(3),
  created_at                         timestamptz(3) NOT NULL DEFAULT now(),
  updated_at                         timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (merchant_account_id, id)
);
-- The list, last updated first, and its updated_at range filters.
CREATE INDEX payment_links_list_idx ON payment_links (merchant_account_id, updated_at DESC, id DESC);
CREATE INDEX payment_links_created_idx ON payment_links (merchant_account_id, created_at DESC, id DESC);
CREATE INDEX payment_links_status_idx ON payment_links (merchant_account_id, status, updated_at DESC, id DESC);
CREATE INDEX payment_links_currency_idx ON payment_links (merchant_account_id, currency, updated_at DESC, id DESC);
CREATE INDEX payment_links_amount_idx ON payment_links (merchant_account_id, amount);
-- buyer_search: display name and e-mail ignoring case, external identifier exactly.
CREATE INDEX payment_links_buyer_name_idx ON payment_links (merchant_account_id, lower(buyer->>'display_name')) WHERE buyer IS NOT NULL;
CREATE INDEX payment_links_buyer_ext_idx ON payment_links (merchant_account_id, (buyer->>'external_identifier')) WHERE buyer IS NOT NULL;
CREATE INDEX payment_links_buyer_email_idx ON payment_links (merchant_account_id, lower(buyer->'billing_details'->>'email_address')) WHERE buyer IS NOT NULL;
-- The expiry job and the processing check scan only the links that can still change.
CREATE INDEX payment_links_open_idx ON payment_links (expires_at) WHERE status IN ('active', 'processing');

-- Each payment through a link is a transaction that names it (GET /transactions?payment_link_id=).
ALTER TABLE transactions ADD COLUMN payment_link_id uuid;
CREATE INDEX transactions_payment_link_idx ON transactions (merchant_account_id, payment_link_id, updated_at DESC, id DESC) WHERE payment_link_id IS NOT NULL;
