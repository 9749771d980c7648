-- Payouts (funds sent to a card) and every connector call made for one (attempts), recorded before
-- the call with its provider-side idempotency key (the attempt id). A timeout or a crash leaves the
-- attempt `unknown` and the payout `pending`; reconciliation settles both (decision 0068).
CREATE TABLE payouts (
  merchant_account_id        text NOT NULL REFERENCES merchant_accounts (id),
  id                         uuid NOT NULL,
  status                     text NOT NULL CHECK (status IN ('pending', 'succeeded', 'declined', 'failed')),
  amount                     bigint NOT NULL CHECK (amount >= 0 AND amount <= 99999999),
  currency                   text NOT NULL,
  category                   text CHECK (category IN ('online_gambling')),
  external_identifier        text,
  payment_service_id         uuid NOT NULL,
  -- {id, payment_service_definition_id, method, display_name} as it was when the payout was made.
  payment_service            jsonb NOT NULL,
  payment_method_id          uuid,
  -- The destination card (scheme, bin, last 4, expiry, fingerprint): never a full number.
  payment_method             jsonb NOT NULL,
  buyer_id                   uuid,
  -- Guest buyer (inline) or a copy of the stored buyer's summary; personal data.
  buyer                      jsonb,
  merchant                   jsonb,
  connection_options         jsonb,
  payment_service_payout_id  text,
  -- Kept for support; the payout resource has no such fields.
  error_code                 text,
  raw_response_code          text,
  raw_response_description   text,
  created_at                 timestamptz(3) NOT NULL DEFAULT now(),
  updated_at                 timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (merchant_account_id, id)
);
-- The list, newest first, and its created_at range filters.
CREATE INDEX payouts_list_idx ON payouts (merchant_account_id, created_at DESC, id DESC);
-- updated_at range filters.
CREATE INDEX payouts_updated_idx ON payouts (merchant_account_id, updated_at DESC, id DESC);
CREATE INDEX payouts_status_idx ON payouts (merchant_account_id, status, created_at DESC, id DESC);
CREATE INDEX payouts_external_idx ON payouts (merchant_account_id, external_identifier) WHERE external_identifier IS NOT NULL;
CREATE INDEX payouts_psp_id_idx ON payouts (merchant_account_id, payment_service_payout_id) WHERE payment_service_payout_id IS NOT NULL;

CREATE TABLE payout_attempts (
  merchant_account_id       text NOT NULL REFERENCES merchant_accounts (id),
  id                        uuid NOT NULL,
  payout_id                 uuid NOT NULL,
  payment_service_id        uuid NOT NULL,
  -- in_flight: the call is being made; unknown: no answer (timeout, crash); pending: the provider
  -- accepted it and will finish later; succeeded / declined / failed: final.
  status                    text NOT NULL CHECK (status IN ('in_flight', 'unknown', 'pending', 'succeeded', 'declined', 'failed')),
  provider_reference        text,
  error_code                text,
  raw_response_code         text,
  raw_response_description  text,
  -- When reconciliation looks at this attempt next, and how often it has.
  next_check_at             timestamptz(3),
  checks                    integer NOT NULL DEFAULT 0,
  created_at                timestamptz(3) NOT NULL DEFAULT now(),
  updated_at                timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (merchant_account_id, id),
  FOREIGN KEY (merchant_account_id, payout_id) REFERENCES payouts (merchant_account_id, id)
);
CREATE INDEX payout_attempts_payout_idx ON payout_attempts (merchant_account_id, payout_id, created_at);
-- Reconciliation scans only the attempts that are not final.
CREATE INDEX payout_attempts_open_idx ON payout_attempts (next_check_at) WHERE status IN ('in_flight', 'unknown', 'pending');
