-- Buyers and their shipping details. Personal data (billing and shipping contact fields) is kept
-- in JSON and plain columns and masked on the way out for callers without
-- buyers.billing-details.read (src/modules/buyers/pii-mask.ts).

CREATE TABLE buyers (
  merchant_account_id text NOT NULL REFERENCES merchant_accounts (id),
  id                  uuid NOT NULL,
  display_name        text,
  external_identifier text,
  account_number      text,
  -- BillingDetails as on the wire (first_name, last_name, email_address, phone_number, address, tax_id).
  billing_details     jsonb,
  created_at          timestamptz(3) NOT NULL DEFAULT now(),
  updated_at          timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (merchant_account_id, id)
);
CREATE INDEX buyers_created_idx ON buyers (merchant_account_id, created_at DESC, id DESC);
-- One buyer per external identifier (NULLs do not collide); also serves the exact filter.
CREATE UNIQUE INDEX buyers_external_identifier_key ON buyers (merchant_account_id, external_identifier);
-- `search`: case-insensitive prefix match, `lower(col) LIKE 'term%'`. text_pattern_ops lets the
-- LIKE prefix use the index whatever the database collation (decision 0036).
CREATE INDEX buyers_display_name_search_idx ON buyers (merchant_account_id, lower(display_name) text_pattern_ops);
CREATE INDEX buyers_external_identifier_search_idx ON buyers (merchant_account_id, lower(external_identifier) text_pattern_ops);

CREATE TABLE buyer_shipping_details (
  merchant_account_id text NOT NULL,
  id                  uuid NOT NULL,
  buyer_id            uuid NOT NULL,
  first_name          text,
  last_name           text,
  email_address       text,
  phone_number        text,
  -- Address as on the wire.
  address             jsonb,
  created_at          timestamptz(3) NOT NULL DEFAULT now(),
  updated_at          timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (merchant_account_id, id),
  -- No cascade: deleting a buyer deletes its shipping details explicitly, each with its audit entry.
  FOREIGN KEY (merchant_account_id, buyer_id) REFERENCES buyers (merchant_account_id, id)
);
CREATE INDEX buyer_shipping_details_buyer_idx ON buyer_shipping_details (merchant_account_id, buyer_id, created_at DESC, id DESC);
