-- Issue 57 (WAL per authorization), decision 0149: the transactions table rebuilt with the same
-- columns, constraints and indexes in another order, and room on each page for a row's next version.
--
-- A non-HOT update logs the whole new row, except the bytes it shares at its start (prefix) and at
-- its end (suffix) with the old version, and only when the new version goes on the old one's page.
-- In the order of 0011 the answer of an authorization changed the third column (status) and the
-- last few (updated_at): nothing was shared, and its update logged ~1,250 bytes. Here the columns
-- come in three groups: those written once by the insert, then those an answer writes, then those
-- that change later or seldom (the JSON snapshots that a failover, a stored card or a 3DS step
-- rewrite, last). fillfactor 60 leaves room on the page for the next versions of the rows an insert
-- put there (with rows of ~1.1 kB, 97 % of answers in the benchmark). The answer's update then logs
-- the answer's columns only (~300 bytes instead of ~1,250; measured in decision 0149).
--
-- Column order is physical only: every query reads and writes columns by name, so nothing else changes.
-- The foreign keys of other tables that reference transactions are dropped with the old table and
-- added again exactly as they were (read from the catalog first, whatever later migrations changed).

CREATE TEMPORARY TABLE migration_0075_references ON COMMIT DROP AS
  SELECT conrelid::regclass::text AS referencing, conname::text AS name, pg_get_constraintdef(oid) AS definition
  FROM pg_constraint
  WHERE contype = 'f' AND confrelid = 'transactions'::regclass AND conrelid <> 'transactions'::regclass;

-- The new table takes the name from the start, as its constraints' names derive from it: PostgreSQL
-- 18 (PGlite) names its NOT NULL constraints `transactions_<column>_not_null`, and would add a digit
-- while the old table's still hold those names (PostgreSQL 15 keeps no such constraint).
ALTER TABLE transactions RENAME TO transactions_before_0075;
DO $$
DECLARE r record;
BEGIN
  FOR r IN SELECT conname FROM pg_constraint WHERE conrelid = 'transactions_before_0075'::regclass AND contype = 'n' LOOP
    EXECUTE format('ALTER TABLE transactions_before_0075 RENAME CONSTRAINT %I TO %I', r.conname, 'old_' || r.conname);
  END LOOP;
END $$;

CREATE TABLE transactions (
  -- Written by the insert, never changed.
  merchant_account_id            text NOT NULL,
  id                             uuid NOT NULL,
  intent                         text NOT NULL CONSTRAINT transactions_intent_check CHECK (intent IN ('authorize', 'capture')),
  currency                       text NOT NULL,
  country                        text,
  amount                         bigint NOT NULL CONSTRAINT transactions_amount_check CHECK (amount >= 0),
  -- The part of `amount` funded by gift cards (multi-tender); the rest is authorized on the payment method.
  gift_card_amount               bigint NOT NULL DEFAULT 0,
  created_at                     timestamptz(3) NOT NULL DEFAULT now(),
  method                         text,
  instrument_type                text,
  card_fingerprint               text,
  buyer_id                       uuid,
  -- Guest buyer (inline) or a copy of the stored buyer's summary; personal data.
  buyer                          jsonb,
  buyer_external_identifier      text,
  buyer_email_address            text,
  shipping_details               jsonb,
  checkout_session_id            uuid,
  payment_link_id                uuid,
  -- The buyer's IP address (X-Forwarded-For of POST /transactions), for anti-fraud and filters.
  ip_address                     text,
  external_identifier            text,
  payment_source                 text NOT NULL,
  merchant_initiated             boolean NOT NULL,
  is_subsequent_payment          boolean NOT NULL,
  multi_tender                   boolean NOT NULL DEFAULT false,
  account_funding_transaction    boolean NOT NULL DEFAULT false,
  store_on_approval              boolean NOT NULL DEFAULT false,
  cart_items                     jsonb,
  airline                        jsonb,
  statement_descriptor           jsonb,
  recipient                      jsonb,
  -- Level 2/3 and other pass-through fields (tax_amount, installment_count, ...).
  extra                          jsonb NOT NULL DEFAULT '{}',
  connection_options             jsonb,
  anti_fraud_service_id          uuid,
  -- Written by an answer (authorization, capture).
  status                         text NOT NULL CONSTRAINT transactions_status_check CHECK (status IN ('processing', 'buyer_approval_pending', 'authorization_succeeded',
                                   'authorization_declined', 'authorization_failed', 'authorization_voided', 'authorization_void_pending', 'capture_succeeded', 'capture_pending')),
  intent_outcome                 text NOT NULL CONSTRAINT transactions_intent_outcome_check CHECK (intent_outcome IN ('pending', 'succeeded', 'failed')),
  authorized_amount              bigint NOT NULL DEFAULT 0 CONSTRAINT transactions_authorized_amount_check CHECK (authorized_amount >= 0),
  -- The most that may be captured in all: the authorized amount, plus the payment service's
  -- over-capture allowance when it has one.
  capture_limit                  bigint NOT NULL DEFAULT 0,
  captured_amount                bigint NOT NULL DEFAULT 0 CONSTRAINT transactions_captured_amount_check CHECK (captured_amount >= 0),
  error_code                     text,
  raw_response_code              text,
  raw_response_description       text,
  auth_response_code             text,
  avs_response_code              text,
  cvv_response_code              text,
  merchant_advice_code           text,
  scheme_transaction_id          text,
  payment_service_transaction_id text,
  additional_identifiers         jsonb NOT NULL DEFAULT '{}',
  approval_url                   text,
  authorized_at                  timestamptz(3),
  captured_at                    timestamptz(3),
  updated_at                     timestamptz(3) NOT NULL DEFAULT now(),
  -- Changed later (refunds, settlement, disputes, review, void) or seldom (a failover, a stored
  -- card, 3DS), the large snapshots last.
  refunded_amount                bigint NOT NULL DEFAULT 0 CONSTRAINT transactions_refunded_amount_check CHECK (refunded_amount >= 0),
  -- Captures and refunds in flight reserve their amount so that concurrent requests cannot
  -- together exceed the limits while the connector is being called.
  capture_reserved               bigint NOT NULL DEFAULT 0 CONSTRAINT transactions_capture_reserved_check CHECK (capture_reserved >= 0),
  refund_reserved                bigint NOT NULL DEFAULT 0 CONSTRAINT transactions_refund_reserved_check CHECK (refund_reserved >= 0),
  settled_amount                 bigint NOT NULL DEFAULT 0,
  settled                        boolean NOT NULL DEFAULT false,
  -- Set by a final capture or a void: no capture may follow.
  capture_closed                 boolean NOT NULL DEFAULT false,
  disputed                       boolean NOT NULL DEFAULT false,
  pending_review                 boolean NOT NULL DEFAULT false,
  settled_currency               text,
  voided_at                      timestamptz(3),
  canceled_at                    timestamptz(3),
  approval_expires_at            timestamptz(3),
  buyer_approval_timedout_at     timestamptz(3),
  anti_fraud_decision            text,
  metadata                       jsonb,
  three_d_secure                 jsonb,
  payment_method_id              uuid,
  payment_service_id             uuid,
  -- The transaction's payment method object (scheme, bin, last 4, expiry, fingerprint, label...):
  -- never a full number.
  payment_method                 jsonb,
  payment_service                jsonb,
  -- The routing decision and other flow actions (GET /transactions/{id}/actions).
  actions                        jsonb NOT NULL DEFAULT '[]',
  CONSTRAINT transactions_check CHECK (gift_card_amount >= 0 AND gift_card_amount <= amount),
  CONSTRAINT transactions_check1 CHECK (captured_amount + capture_reserved <= capture_limit),
  CONSTRAINT transactions_check2 CHECK (refunded_amount + refund_reserved <= captured_amount),
  CONSTRAINT transactions_check3 CHECK (NOT (voided_at IS NOT NULL AND captured_amount > 0))
) WITH (fillfactor = 60);

INSERT INTO transactions (merchant_account_id, id, intent, currency, country, amount, gift_card_amount, created_at, method, instrument_type,
    card_fingerprint, buyer_id, buyer, buyer_external_identifier, buyer_email_address, shipping_details, checkout_session_id, payment_link_id,
    ip_address, external_identifier, payment_source, merchant_initiated, is_subsequent_payment, multi_tender, account_funding_transaction,
    store_on_approval, cart_items, airline, statement_descriptor, recipient, extra, connection_options, anti_fraud_service_id, status,
    intent_outcome, authorized_amount, capture_limit, captured_amount, error_code, raw_response_code, raw_response_description,
    auth_response_code, avs_response_code, cvv_response_code, merchant_advice_code, scheme_transaction_id, payment_service_transaction_id,
    additional_identifiers, approval_url, authorized_at, captured_at, updated_at, refunded_amount, capture_reserved, refund_reserved,
    settled_amount, settled, capture_closed, disputed, pending_review, settled_currency, voided_at, canceled_at, approval_expires_at,
    buyer_approval_timedout_at, anti_fraud_decision, metadata, three_d_secure, payment_method_id, payment_service_id, payment_method,
    payment_service, actions)
  SELECT merchant_account_id, id, intent, currency, country, amount, gift_card_amount, created_at, method, instrument_type,
    card_fingerprint, buyer_id, buyer, buyer_external_identifier, buyer_email_address, shipping_details, checkout_session_id, payment_link_id,
    ip_address, external_identifier, payment_source, merchant_initiated, is_subsequent_payment, multi_tender, account_funding_transaction,
    store_on_approval, cart_items, airline, statement_descriptor, recipient, extra, connection_options, anti_fraud_service_id, status,
    intent_outcome, authorized_amount, capture_limit, captured_amount, error_code, raw_response_code, raw_response_description,
    auth_response_code, avs_response_code, cvv_response_code, merchant_advice_code, scheme_transaction_id, payment_service_transaction_id,
    additional_identifiers, approval_url, authorized_at, captured_at, updated_at, refunded_amount, capture_reserved, refund_reserved,
    settled_amount, settled, capture_closed, disputed, pending_review, settled_currency, voided_at, canceled_at, approval_expires_at,
    buyer_approval_timedout_at, anti_fraud_decision, metadata, three_d_secure, payment_method_id, payment_service_id, payment_method,
    payment_service, actions
  FROM transactions_before_0075;

-- CASCADE: the other tables' foreign keys to it (added again below); its indexes and statistics go with it.
DROP TABLE transactions_before_0075 CASCADE;
ALTER TABLE transactions ADD CONSTRAINT transactions_pkey PRIMARY KEY (merchant_account_id, id);
ALTER TABLE transactions ADD CONSTRAINT transactions_merchant_account_id_fkey FOREIGN KEY (merchant_account_id) REFERENCES merchant_accounts (id);

DO $$
DECLARE r record;
BEGIN
  FOR r IN SELECT * FROM migration_0075_references ORDER BY referencing, name LOOP
    EXECUTE format('ALTER TABLE %s ADD CONSTRAINT %I %s', r.referencing, r.name, r.definition);
  END LOOP;
END $$;

-- The indexes of 0011, 0013, 0026 and 0074, unchanged.
CREATE INDEX transactions_list_idx ON transactions (merchant_account_id, updated_at DESC, id DESC);
CREATE INDEX transactions_created_idx ON transactions (merchant_account_id, created_at DESC, id DESC);
CREATE INDEX transactions_status_idx ON transactions (merchant_account_id, status, updated_at DESC, id DESC);
CREATE INDEX transactions_buyer_idx ON transactions (merchant_account_id, buyer_id, updated_at DESC) WHERE buyer_id IS NOT NULL;
CREATE INDEX transactions_buyer_ext_idx ON transactions (merchant_account_id, buyer_external_identifier) WHERE buyer_external_identifier IS NOT NULL;
CREATE INDEX transactions_buyer_email_idx ON transactions (merchant_account_id, lower(buyer_email_address)) WHERE buyer_email_address IS NOT NULL;
CREATE INDEX transactions_external_idx ON transactions (merchant_account_id, external_identifier) WHERE external_identifier IS NOT NULL;
CREATE INDEX transactions_payment_method_idx ON transactions (merchant_account_id, payment_method_id) WHERE payment_method_id IS NOT NULL;
CREATE INDEX transactions_payment_service_idx ON transactions (merchant_account_id, payment_service_id, updated_at DESC) WHERE payment_service_id IS NOT NULL;
CREATE INDEX transactions_psp_id_idx ON transactions (merchant_account_id, payment_service_transaction_id) WHERE payment_service_transaction_id IS NOT NULL;
CREATE INDEX transactions_checkout_session_idx ON transactions (merchant_account_id, checkout_session_id) WHERE checkout_session_id IS NOT NULL;
CREATE INDEX transactions_fingerprint_idx ON transactions (merchant_account_id, card_fingerprint) WHERE card_fingerprint IS NOT NULL;
CREATE INDEX transactions_metadata_idx ON transactions USING gin (metadata jsonb_path_ops) WHERE metadata IS NOT NULL;
CREATE INDEX transactions_ip_idx ON transactions (merchant_account_id, ip_address) WHERE ip_address IS NOT NULL;
CREATE INDEX transactions_error_code_idx ON transactions (merchant_account_id, error_code, updated_at DESC, id DESC) WHERE error_code IS NOT NULL;
CREATE INDEX transactions_bin_idx ON transactions (merchant_account_id, (payment_method->>'bin') text_pattern_ops) WHERE payment_method IS NOT NULL;
CREATE INDEX transactions_label_idx ON transactions (merchant_account_id, (payment_method->>'label')) WHERE payment_method IS NOT NULL;
CREATE INDEX transactions_buyer_name_idx ON transactions (merchant_account_id, lower(buyer->>'display_name')) WHERE buyer IS NOT NULL;
CREATE INDEX transactions_disputed_idx ON transactions (merchant_account_id, updated_at DESC, id DESC) WHERE disputed;
CREATE INDEX transactions_pending_review_idx ON transactions (merchant_account_id, updated_at DESC, id DESC) WHERE pending_review;
CREATE INDEX transactions_payment_link_idx ON transactions (merchant_account_id, payment_link_id, updated_at DESC, id DESC) WHERE payment_link_id IS NOT NULL;
-- The expression statistics of 0013.
CREATE STATISTICS transactions_buyer_name_stats ON (lower(buyer->>'display_name')) FROM transactions;
CREATE STATISTICS transactions_buyer_email_stats ON (lower(buyer_email_address)) FROM transactions;
CREATE STATISTICS transactions_bin_stats ON ((payment_method->>'bin')) FROM transactions;
CREATE STATISTICS transactions_label_stats ON ((payment_method->>'label')) FROM transactions;
