-- Platform foundation: instance settings, merchant accounts, API key pairs, idempotency keys, jobs.

CREATE TABLE instance_settings (
  key        text PRIMARY KEY,
  value      text NOT NULL,
  created_at timestamptz(3) NOT NULL DEFAULT now()
);

CREATE TABLE merchant_accounts (
  id                                          text PRIMARY KEY,
  display_name                                text NOT NULL,
  account_updater_enabled                     boolean NOT NULL DEFAULT false,
  account_updater_request_encryption_key      text,
  account_updater_request_encryption_key_id   text,
  account_updater_response_decryption_key     text,
  account_updater_response_decryption_key_id  text,
  over_capture_amount                         bigint,
  over_capture_percentage                     integer,
  loon_client_key                             text,
  loon_secret_key                             text,
  loon_accepted_schemes                       text[],
  visa_network_tokens_requestor_id            text,
  visa_network_tokens_app_id                  text,
  amex_network_tokens_requestor_id            text,
  amex_network_tokens_app_id                  text,
  mastercard_network_tokens_requestor_id      text,
  mastercard_network_tokens_app_id            text,
  async_network_tokens_enabled                boolean NOT NULL DEFAULT false,
  created_at                                  timestamptz(3) NOT NULL DEFAULT now(),
  updated_at                                  timestamptz(3) NOT NULL DEFAULT now()
);
-- Keyset pagination, newest first.
CREATE INDEX merchant_accounts_created_idx ON merchant_accounts (created_at DESC, id DESC);

CREATE TABLE api_key_pairs (
  id                  uuid PRIMARY KEY,
  -- RFC 7638 JWK thumbprint of the public key; the `kid` of every token signed by it.
  thumbprint          text NOT NULL UNIQUE,
  algorithm           text NOT NULL DEFAULT 'ES512',
  public_jwk          jsonb NOT NULL,
  display_name        text NOT NULL,
  -- NULL: the pair may act on every merchant account.
  merchant_account_id text REFERENCES merchant_accounts (id),
  active              boolean NOT NULL DEFAULT true,
  created_at          timestamptz(3) NOT NULL DEFAULT now(),
  updated_at          timestamptz(3) NOT NULL DEFAULT now(),
  revoked_at          timestamptz(3)
);
CREATE INDEX api_key_pairs_created_idx ON api_key_pairs (created_at DESC, id DESC);

CREATE TABLE idempotency_keys (
  merchant_account_id text NOT NULL,
  -- The credential owner (API key pair id) that sent the key.
  owner               text NOT NULL,
  key                 text NOT NULL,
  method              text NOT NULL,
  path                text NOT NULL,
  request_hash        text NOT NULL,
  state               text NOT NULL CHECK (state IN ('processing', 'completed')),
  response_status     integer,
  response_body       text,
  locked_until        timestamptz(3) NOT NULL,
  created_at          timestamptz(3) NOT NULL DEFAULT now(),
  expires_at          timestamptz(3) NOT NULL,
  PRIMARY KEY (merchant_account_id, owner, key)
);
CREATE INDEX idempotency_keys_expires_idx ON idempotency_keys (expires_at);

CREATE TABLE jobs (
  id           uuid PRIMARY KEY,
  name         text NOT NULL,
  payload      jsonb NOT NULL,
  job_key      text UNIQUE,
  status       text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'succeeded', 'failed')),
  run_at       timestamptz(3) NOT NULL DEFAULT now(),
  attempts     integer NOT NULL DEFAULT 0,
  max_attempts integer NOT NULL,
  locked_by    text,
  locked_until timestamptz(3),
  last_error   text,
  created_at   timestamptz(3) NOT NULL DEFAULT now(),
  updated_at   timestamptz(3) NOT NULL DEFAULT now()
);
-- The dequeue scan: due jobs in order. Finished jobs leave this partial index.
CREATE INDEX jobs_due_idx ON jobs (run_at) WHERE status IN ('queued', 'running');
CREATE INDEX jobs_finished_idx ON jobs (updated_at) WHERE status IN ('succeeded', 'failed');
