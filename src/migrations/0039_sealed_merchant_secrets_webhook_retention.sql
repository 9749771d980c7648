-- Issue 48. The secrets a merchant account holds (loon_secret_key, and the account updater's
-- request encryption and response decryption keys) are sealed by the vault, as every other secret:
-- by field name, {ciphertext, keyId} under the account's data key, bound to the row and the field
-- (the payment services' `sealed_fields` shape). `secret_masks` holds what responses show of each
-- (maskSecret: the last four characters at most), so a read opens nothing.
ALTER TABLE merchant_accounts ADD COLUMN sealed_secrets jsonb NOT NULL DEFAULT '{}';
ALTER TABLE merchant_accounts ADD COLUMN secret_masks jsonb NOT NULL DEFAULT '{}';
-- The three plaintext columns stay, nullable, for a rolling deploy: processes of the previous
-- version still read and write them. SQL cannot seal, so the job seal-merchant-account-secrets
-- (every 5 minutes, the first within 5 minutes of the upgrade) seals what they hold and sets them
-- to NULL; this version never writes them but to clear them. A later migration drops them, once
-- no process of a version before this one runs.

-- Inbound provider webhooks are purged after INBOUND_WEBHOOK_RETENTION_DAYS by received_at,
-- across merchant accounts (purge-inbound-webhook-events).
CREATE INDEX inbound_webhook_events_purge_idx ON inbound_webhook_events (received_at);
