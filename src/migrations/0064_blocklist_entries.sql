-- Issue "Risk", item 1: blocklists per merchant account (docs/risk.md, "Blocklists"; decision 0135).
-- One row per blocked value. `value` is the normalized form (e-mail lower-case, country upper-case,
-- IP addresses and CIDR blocks canonical, BIN ranges `low-high`); a card is blocked by its vault
-- fingerprint (HMAC under the merchant's fingerprint key), never by its number, plus the number's
-- first 6 and last 4 digits when they are known.
CREATE TABLE blocklist_entries (
  merchant_account_id  text NOT NULL REFERENCES merchant_accounts (id),
  id                   uuid NOT NULL,
  value_type           text NOT NULL CHECK (value_type IN ('card_fingerprint', 'bin', 'bin_range', 'email_address',
                         'ip_address', 'country', 'buyer_external_identifier')),
  value                text NOT NULL,
  card_number_masked   text,
  description          text,
  -- Null: never expires. An expired entry never matches; it stays listed until deleted.
  expires_at           timestamptz(3),
  created_at           timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (merchant_account_id, id),
  CHECK (card_number_masked IS NULL OR value_type = 'card_fingerprint')
);
-- One entry per value: a second create is a 409 naming the first (and the import skips it).
CREATE UNIQUE INDEX blocklist_entries_value_key ON blocklist_entries (merchant_account_id, value_type, value);
-- The list, newest first (keyset pagination), and its filters by type and by value.
CREATE INDEX blocklist_entries_keyset_idx ON blocklist_entries (merchant_account_id, created_at DESC, id DESC);
CREATE INDEX blocklist_entries_type_idx ON blocklist_entries (merchant_account_id, value_type, created_at DESC, id DESC);
CREATE INDEX blocklist_entries_value_idx ON blocklist_entries (merchant_account_id, value);

-- Each process keeps every merchant account's blocklist compiled in memory (blocklist-cache.ts);
-- a write anywhere tells every process to forget that account's copy (migration 0034's trigger).
CREATE TRIGGER blocklist_entries_notify_change
  AFTER INSERT OR UPDATE OR DELETE ON blocklist_entries
  FOR EACH ROW EXECUTE FUNCTION svc_notify_change();
