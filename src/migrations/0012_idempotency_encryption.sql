-- Idempotency responses are sealed by the vault (AES-256-GCM under the merchant account's data key)
-- and bound to the credential that made the request. See decision 0013.

-- Completed keys hold their response in clear: delete them rather than encrypt them here (SQL has
-- no access to the data keys). They would expire within IDEMPOTENCY_TTL_SECONDS (24 h) anyway; a
-- retry of one of them runs as a new request. Claims still processing are kept.
DELETE FROM idempotency_keys WHERE response_body IS NOT NULL;

ALTER TABLE idempotency_keys
  -- The vault data key that sealed response_body (the ciphertext's key id).
  ADD COLUMN response_key_id uuid,
  -- SHA-256 of the credential's sorted scopes and embed pins; NULL only on claims made before this
  -- migration. A replay needs the same value.
  ADD COLUMN credential_hash text;

-- No response is ever stored in clear again, not even by a process of the previous version still
-- running during an upgrade: its write fails (and its work rolls back) instead.
ALTER TABLE idempotency_keys
  ADD CONSTRAINT idempotency_keys_sealed_response CHECK (response_body IS NULL OR response_key_id IS NOT NULL);
