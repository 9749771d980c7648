-- Issue 52. Passkeys (WebAuthn) as a second factor of dashboard users, and the pending WebAuthn
-- challenge of a session.

-- One passkey of a user. Only the public key is kept: nothing here signs anything.
CREATE TABLE dashboard_passkeys (
  id             uuid PRIMARY KEY,
  user_id        uuid NOT NULL REFERENCES dashboard_users (id) ON DELETE CASCADE,
  -- The credential id the authenticator chose, base64url (at most 1023 bytes, WebAuthn level 3).
  credential_id  text NOT NULL,
  -- The COSE public key from the attestation (ES256, EdDSA or RS256).
  public_key     bytea NOT NULL,
  -- The authenticator's signature counter: a sign-in with a counter not above it is refused (a
  -- cloned authenticator) unless both are 0 (authenticators that keep no counter).
  sign_count     bigint NOT NULL DEFAULT 0,
  transports     text[] NOT NULL DEFAULT '{}',
  name           text NOT NULL,
  created_at     timestamptz(3) NOT NULL DEFAULT now(),
  last_used_at   timestamptz(3)
);
CREATE UNIQUE INDEX dashboard_passkeys_credential_key ON dashboard_passkeys (credential_id);
CREATE INDEX dashboard_passkeys_user_idx ON dashboard_passkeys (user_id);

-- The challenge of the WebAuthn ceremony the session started (registration or sign-in): single
-- use (cleared by the request that checks it), valid 5 minutes, the same as a session waiting for
-- its second factor.
ALTER TABLE dashboard_sessions ADD COLUMN webauthn_challenge text;
ALTER TABLE dashboard_sessions ADD COLUMN webauthn_challenge_expires_at timestamptz(3);
