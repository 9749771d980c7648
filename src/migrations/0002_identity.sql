-- Identity, tenancy and audit: audit log entries, 3DS configurations, rate limit windows.

CREATE TABLE audit_logs (
  merchant_account_id text NOT NULL REFERENCES merchant_accounts (id),
  id                  uuid NOT NULL,
  action              text NOT NULL CHECK (action IN ('created', 'updated', 'deleted', 'voided', 'canceled', 'captured')),
  resource_type       text NOT NULL,
  resource_id         text NOT NULL,
  resource_name       text NOT NULL,
  -- The actor: an API key pair (or, later, a dashboard user).
  user_id             text,
  user_name           text NOT NULL,
  user_email_address  text,
  user_is_staff       boolean NOT NULL DEFAULT false,
  operation_id        text,
  request_id          text,
  created_at          timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (merchant_account_id, id)
);
-- Newest first, and one index per filter, each ending in the keyset order.
CREATE INDEX audit_logs_created_idx ON audit_logs (merchant_account_id, created_at DESC, id DESC);
CREATE INDEX audit_logs_action_idx ON audit_logs (merchant_account_id, action, created_at DESC, id DESC);
CREATE INDEX audit_logs_user_idx ON audit_logs (merchant_account_id, user_id, created_at DESC, id DESC);
CREATE INDEX audit_logs_resource_type_idx ON audit_logs (merchant_account_id, resource_type, created_at DESC, id DESC);

CREATE TABLE three_ds_configurations (
  merchant_account_id    text NOT NULL REFERENCES merchant_accounts (id),
  id                     uuid NOT NULL,
  scheme                 text NOT NULL,
  currency               text,
  merchant_acquirer_bin  text NOT NULL,
  merchant_acquirer_id   text NOT NULL,
  merchant_name          text NOT NULL,
  merchant_country_code  text NOT NULL,
  merchant_category_code text NOT NULL,
  merchant_url           text NOT NULL,
  metadata               jsonb NOT NULL DEFAULT '{}',
  created_at             timestamptz(3) NOT NULL DEFAULT now(),
  updated_at             timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (merchant_account_id, id)
);
CREATE INDEX three_ds_configurations_currency_idx ON three_ds_configurations (merchant_account_id, currency);
-- One configuration per scheme and currency; a NULL currency (all currencies) is its own value.
CREATE UNIQUE INDEX three_ds_configurations_scheme_currency_key
  ON three_ds_configurations (merchant_account_id, scheme, coalesce(currency, ''));

-- Fixed-window request counters shared by every process (enumeration prevention).
CREATE TABLE rate_limit_windows (
  bucket       text NOT NULL,
  window_start timestamptz(3) NOT NULL,
  count        integer NOT NULL,
  expires_at   timestamptz(3) NOT NULL,
  PRIMARY KEY (bucket, window_start)
);
CREATE INDEX rate_limit_windows_expires_idx ON rate_limit_windows (expires_at);

ALTER TABLE api_key_pairs ADD COLUMN deleted_at timestamptz(3);
