-- Issue 52. Dashboard users, their roles per merchant account, set-up links and sign-in sessions.
-- Instance-wide tables (a user may belong to several merchant accounts, or to all of them).

CREATE TABLE dashboard_users (
  id                  uuid PRIMARY KEY,
  email               text NOT NULL,
  display_name        text NOT NULL,
  status              text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled')),
  -- argon2id PHC string; null until the user has followed a set-up link.
  password_hash       text,
  -- TOTP secret wrapped by the vault master key (bound to `dashboard_users:totp:<id>`), with the
  -- master key's id for rotations; pending until confirmed with a code.
  totp_sealed         text,
  totp_master_key_id  text,
  totp_confirmed_at   timestamptz(3),
  -- The last TOTP time step accepted: a code is accepted once.
  totp_last_step      bigint,
  failed_attempts     integer NOT NULL DEFAULT 0,
  locked_until        timestamptz(3),
  created_at          timestamptz(3) NOT NULL DEFAULT now(),
  updated_at          timestamptz(3) NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX dashboard_users_email_key ON dashboard_users (lower(email));

-- One role of a user in one merchant account, or in every account (merchant_account_id null).
CREATE TABLE dashboard_memberships (
  user_id             uuid NOT NULL REFERENCES dashboard_users (id) ON DELETE CASCADE,
  merchant_account_id text REFERENCES merchant_accounts (id) ON DELETE CASCADE,
  role                text NOT NULL,
  created_at          timestamptz(3) NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX dashboard_memberships_key ON dashboard_memberships (user_id, coalesce(merchant_account_id, ''), role);

-- One-time set-up (and password reset) links: only the SHA-256 of the token is kept.
CREATE TABLE dashboard_setup_tokens (
  token_hash   text PRIMARY KEY,
  user_id      uuid NOT NULL REFERENCES dashboard_users (id) ON DELETE CASCADE,
  expires_at   timestamptz(3) NOT NULL,
  used_at      timestamptz(3),
  created_at   timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX dashboard_setup_tokens_user_idx ON dashboard_setup_tokens (user_id);
CREATE INDEX dashboard_setup_tokens_expires_idx ON dashboard_setup_tokens (expires_at);

-- Sign-in sessions: the cookie holds a random token, the row its SHA-256 only.
-- stage: `second-factor` (password checked, code expected), `enrollment` (signed in, must enrol
-- a second factor first), `active`.
CREATE TABLE dashboard_sessions (
  id_hash        text PRIMARY KEY,
  id             uuid NOT NULL,
  user_id        uuid NOT NULL REFERENCES dashboard_users (id) ON DELETE CASCADE,
  stage          text NOT NULL CHECK (stage IN ('second-factor', 'enrollment', 'active')),
  csrf_token     text NOT NULL,
  client_address text,
  created_at     timestamptz(3) NOT NULL DEFAULT now(),
  last_seen_at   timestamptz(3) NOT NULL DEFAULT now(),
  expires_at     timestamptz(3) NOT NULL,
  revoked_at     timestamptz(3)
);
CREATE INDEX dashboard_sessions_user_idx ON dashboard_sessions (user_id);
-- The purge-dashboard-sessions job deletes sessions a day after their absolute end.
CREATE INDEX dashboard_sessions_expires_idx ON dashboard_sessions (expires_at);
