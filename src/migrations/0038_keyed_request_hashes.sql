-- Request hashes become keyed MACs (issue 48). `idempotency_keys.request_hash` was SHA-256 of the
-- method, URL and canonical body: for a card request, about 10⁶ guesses over the unknown digits
-- recovered the card number and security code. It is now an HMAC-SHA256 under a per-merchant
-- `request` data key held by the vault (wrapped by the master key, like the others), prefixed
-- `k1:`; card fields enter it only as MACs of their own (src/http/idempotency-fingerprint.ts).
ALTER TABLE vault_data_keys DROP CONSTRAINT vault_data_keys_purpose_check;
ALTER TABLE vault_data_keys ADD CONSTRAINT vault_data_keys_purpose_check CHECK (purpose IN ('encryption', 'fingerprint', 'request'));

-- SQL cannot key the existing hashes (the key is in the vault): the rekey-idempotency-keys job
-- rewrites each as `k0:` + HMAC of the old SHA-256, so a retry of such a key still matches, and
-- finds them through this index. New rows start with `k`, so it stays empty once the job ran: a
-- new key costs the predicate only, no index write.
CREATE INDEX idempotency_keys_unkeyed_idx ON idempotency_keys (merchant_account_id, owner, key) WHERE request_hash NOT LIKE 'k%';
