-- Issue 48. The instance-wide secrets (cursor_secret, report_download_secret) are sealed: `value`
-- holds the secret wrapped by the vault master key (AES-256-GCM, bound to the setting's key), and
-- `master_key_id` the id of that master key, so a master key rotation finds and re-wraps them like
-- the data keys. A row with no master key id holds its value in clear, as earlier versions wrote
-- it: SQL cannot seal, so each process seals such a row where it first reads it, at start-up
-- (src/vault/instance-secrets.ts), keeping the same secret.
ALTER TABLE instance_settings ADD COLUMN master_key_id text;
