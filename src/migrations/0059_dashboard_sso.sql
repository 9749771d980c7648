-- Issue 52. Single sign-on to the dashboard with OpenID Connect (docs/dashboard.md, "Single sign-on").

-- A sign-in started at the identity provider and not finished yet: the SHA-256 of its `state`
-- (also held by the browser in a cookie), the nonce the ID token must carry and the PKCE verifier.
-- Used once (deleted when the provider sends the browser back), and for 10 minutes at most.
CREATE TABLE dashboard_sso_logins (
  state_hash     text PRIMARY KEY,
  nonce          text NOT NULL,
  code_verifier  text NOT NULL,
  return_to      text NOT NULL DEFAULT '/',
  created_at     timestamptz(3) NOT NULL DEFAULT now(),
  expires_at     timestamptz(3) NOT NULL
);
CREATE INDEX dashboard_sso_logins_expires_idx ON dashboard_sso_logins (expires_at);

-- The identity a user signs in with at a provider: its issuer and subject (`iss`, `sub`), bound
-- to the user at the first single sign-on. The e-mail address finds the user only that first time.
CREATE TABLE dashboard_sso_identities (
  issuer        text NOT NULL,
  subject       text NOT NULL,
  user_id       uuid NOT NULL REFERENCES dashboard_users (id) ON DELETE CASCADE,
  created_at    timestamptz(3) NOT NULL DEFAULT now(),
  last_used_at  timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (issuer, subject)
);
CREATE UNIQUE INDEX dashboard_sso_identities_user_key ON dashboard_sso_identities (user_id, issuer);
