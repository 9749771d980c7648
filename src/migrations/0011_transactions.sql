-- The transaction engine: transactions, every connector call (attempts), the transaction's event
-- history, refunds and settlements. Amounts are bigint minor units. The money invariants are
-- enforced here as well as in the state machine (decision 0052).

CREATE TABLE transactions (
  merchant_account_id            text NOT NULL REFERENCES merchant_accounts (id),
  id                             uuid NOT NULL,
  status                         text NOT NULL CHECK (status IN ('processing', 'buyer_approval_pending', 'authorization_succeeded', 'authorization_declined',
                                   'authorization_failed', 'authorization_voided', 'authorization_void_pending', 'capture_succeeded', 'capture_pending')),
  intent                         text NOT NULL CHECK (intent IN ('authorize', 'capture')),
  intent_outcome                 text NOT NULL CHECK (intent_outcome IN ('pending', 'succeeded', 'failed')),
  currency                       text NOT NULL,
  country                        text,
  amount                         bigint NOT NULL CHECK (amount >= 0),
  -- The part of `amount` funded by gift cards (multi-tender); the rest is authorized on the payment method.
  gift_card_amount               bigint NOT NULL DEFAULT 0 CHECK (gift_card_amount >= 0 AND gift_card_amount <= amount),
  authorized_amount              bigint NOT NULL DEFAULT 0 CHECK (authorized_amount >= 0),
  -- The most that may be captured in all: the authorized amount, plus the payment service's
  -- over-capture allowance when it has one.
  capture_limit                  bigint NOT NULL DEFAULT 0,
  captured_amount                bigint NOT NULL DEFAULT 0 CHECK (captured_amount >= 0),
  refunded_amount                bigint NOT NULL DEFAULT 0 CHECK (refunded_amount >= 0),
  -- Captures and refunds in flight reserve their amount so that concurrent requests cannot
  -- together exceed the limits while the connector is being called.
  capture_reserved               bigint NOT NULL DEFAULT 0 CHECK (capture_reserved >= 0),
  refund_reserved                bigint NOT NULL DEFAULT 0 CHECK (refund_reserved >= 0),
  settled_amount                 bigint NOT NULL DEFAULT 0,
  settled                        boolean NOT NULL DEFAULT false,
  settled_currency               text,
  -- Set by a final capture or a void: no capture may follow.
  capture_closed                 boolean NOT NULL DEFAULT false,
  disputed                       boolean NOT NULL DEFAULT false,
  pending_review                 boolean NOT NULL DEFAULT false,
  method                         text,
  instrument_type                text,
  payment_method_id              uuid,
  -- The transaction's payment method object (scheme, bin, last 4, expiry, fingerprint, label...):
  -- never a full number.
  payment_method                 jsonb,
  card_fingerprint               text,
  payment_service_id             uuid,
  payment_service                jsonb,
  buyer_id                       uuid,
  -- Guest buyer (inline) or a copy of the stored buyer's summary; personal data.
  buyer                          jsonb,
  buyer_external_identifier      text,
  buyer_email_address            text,
  shipping_details               jsonb,
  checkout_session_id            uuid,
  -- The buyer's IP address (X-Forwarded-For of POST /transactions), for anti-fraud and filters.
  ip_address                     text,
  external_identifier            text,
  error_code                     text,
  raw_response_code              text,
  raw_response_description       text,
  auth_response_code             text,
  avs_response_code              text,
  cvv_response_code              text,
  anti_fraud_decision            text,
  merchant_advice_code           text,
  payment_source                 text NOT NULL,
  merchant_initiated             boolean NOT NULL,
  is_subsequent_payment          boolean NOT NULL,
  multi_tender                   boolean NOT NULL DEFAULT false,
  account_funding_transaction    boolean NOT NULL DEFAULT false,
  scheme_transaction_id          text,
  payment_service_transaction_id text,
  additional_identifiers         jsonb NOT NULL DEFAULT '{}',
  metadata                       jsonb,
  cart_items                     jsonb,
  airline                        jsonb,
  statement_descriptor           jsonb,
  three_d_secure                 jsonb,
  recipient                      jsonb,
  -- Level 2/3 and other pass-through fields (tax_amount, installment_count, ...).
  extra                          jsonb NOT NULL DEFAULT '{}',
  connection_options             jsonb,
  -- The routing decision and other flow actions (GET /transactions/{id}/actions).
  actions                        jsonb NOT NULL DEFAULT '[]',
  approval_url                   text,
  authorized_at                  timestamptz(3),
  captured_at                    timestamptz(3),
  voided_at                      timestamptz(3),
  canceled_at                    timestamptz(3),
  approval_expires_at            timestamptz(3),
  buyer_approval_timedout_at     timestamptz(3),
  created_at                     timestamptz(3) NOT NULL DEFAULT now(),
  updated_at                     timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (merchant_account_id, id),
  CHECK (captured_amount + capture_reserved <= capture_limit),
  CHECK (refunded_amount + refund_reserved <= captured_amount),
  CHECK (NOT (voided_at IS NOT NULL AND captured_amount > 0))
);
-- The list is ordered by updated_at (newest update first).
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
CREATE INDEX transactions_metadata_idx ON transactions USING gin (metadata jsonb_path_ops);

-- Every call to a connector, recorded before the call with its provider-side idempotency key (the
-- attempt id). A timeout or a crash leaves it `unknown`; reconciliation settles it.
CREATE TABLE transaction_attempts (
  merchant_account_id  text NOT NULL REFERENCES merchant_accounts (id),
  id                   uuid NOT NULL,
  transaction_id       uuid NOT NULL,
  operation            text NOT NULL CHECK (operation IN ('authorize', 'capture', 'void', 'cancel', 'refund')),
  -- in_flight: the call is being made; unknown: no answer (timeout, crash); pending: the provider
  -- accepted it and will finish later; succeeded / declined / failed: final.
  status               text NOT NULL CHECK (status IN ('in_flight', 'unknown', 'pending', 'succeeded', 'declined', 'failed')),
  amount               bigint NOT NULL DEFAULT 0 CHECK (amount >= 0),
  final                boolean NOT NULL DEFAULT true,
  refund_id            uuid,
  payment_service_id   uuid,
  external_identifier  text,
  provider_reference   text,
  -- Sandbox approval pages: what the buyer chose (the simulated provider's record of it).
  approval_decision    text CHECK (approval_decision IN ('approved', 'declined')),
  error_code           text,
  raw_response_code    text,
  raw_response_description text,
  -- When reconciliation looks at this attempt next, and how often it has.
  next_check_at        timestamptz(3),
  checks               integer NOT NULL DEFAULT 0,
  created_at           timestamptz(3) NOT NULL DEFAULT now(),
  updated_at           timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (merchant_account_id, id),
  FOREIGN KEY (merchant_account_id, transaction_id) REFERENCES transactions (merchant_account_id, id)
);
CREATE INDEX transaction_attempts_txn_idx ON transaction_attempts (merchant_account_id, transaction_id, created_at);
-- Reconciliation scans only the attempts that are not final.
CREATE INDEX transaction_attempts_open_idx ON transaction_attempts (next_check_at) WHERE status IN ('in_flight', 'unknown', 'pending');

CREATE TABLE transaction_events (
  merchant_account_id  text NOT NULL REFERENCES merchant_accounts (id),
  id                   uuid NOT NULL,
  transaction_id       uuid NOT NULL,
  name                 text NOT NULL,
  context              jsonb NOT NULL DEFAULT '{}',
  created_at           timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (merchant_account_id, id),
  FOREIGN KEY (merchant_account_id, transaction_id) REFERENCES transactions (merchant_account_id, id)
);
CREATE INDEX transaction_events_txn_idx ON transaction_events (merchant_account_id, transaction_id, created_at DESC, id DESC);

CREATE TABLE refunds (
  merchant_account_id       text NOT NULL REFERENCES merchant_accounts (id),
  id                        uuid NOT NULL,
  transaction_id            uuid NOT NULL,
  status                    text NOT NULL CHECK (status IN ('processing', 'succeeded', 'failed', 'declined', 'voided')),
  currency                  text NOT NULL,
  amount                    bigint NOT NULL CHECK (amount > 0),
  reason                    text,
  target_type               text NOT NULL CHECK (target_type IN ('payment-method', 'gift-card-redemption')),
  target_id                 uuid,
  external_identifier       text,
  payment_service_refund_id text,
  error_code                text,
  raw_response_code         text,
  raw_response_description  text,
  creator                   jsonb,
  created_at                timestamptz(3) NOT NULL DEFAULT now(),
  updated_at                timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (merchant_account_id, id),
  FOREIGN KEY (merchant_account_id, transaction_id) REFERENCES transactions (merchant_account_id, id)
);
CREATE INDEX refunds_txn_idx ON refunds (merchant_account_id, transaction_id, created_at DESC, id DESC);

CREATE TABLE settlements (
  merchant_account_id       text NOT NULL REFERENCES merchant_accounts (id),
  id                        uuid NOT NULL,
  transaction_id            uuid NOT NULL,
  -- Null for the settlement of the transaction's captures; set for a refund settlement.
  refund_id                 uuid,
  currency                  text NOT NULL,
  amount                    bigint NOT NULL,
  exchange_rate             double precision,
  commission                bigint NOT NULL DEFAULT 0,
  interchange               bigint,
  markup                    bigint,
  scheme_fee                bigint,
  payment_service_report_id text NOT NULL,
  payment_service_report_file_ids jsonb NOT NULL DEFAULT '[]',
  posted_at                 timestamptz(3) NOT NULL,
  ingested_at               timestamptz(3) NOT NULL,
  created_at                timestamptz(3) NOT NULL DEFAULT now(),
  updated_at                timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (merchant_account_id, id),
  FOREIGN KEY (merchant_account_id, transaction_id) REFERENCES transactions (merchant_account_id, id)
);
CREATE INDEX settlements_txn_idx ON settlements (merchant_account_id, transaction_id, created_at);
-- One settlement per transaction and one per refund: a settlement job that runs twice changes nothing.
CREATE UNIQUE INDEX settlements_once_idx ON settlements (merchant_account_id, transaction_id, (coalesce(refund_id, '00000000-0000-0000-0000-000000000000'::uuid)));
