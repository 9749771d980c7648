-- Risk, item 3. The card-testing guard (docs/risk.md, "Card-testing guard"; decision 0138): one row
-- per throttled source of a merchant account (the keyed MAC of its IP address, buyer, checkout
-- session or embed token, never the value). A process that sees a source pass the threshold claims
-- the row (INSERT ... ON CONFLICT DO UPDATE ... WHERE the last throttle has ended): only the process
-- whose statement wrote it raises the monitoring incident and its webhook event, so a throttle is
-- announced once per source and cool-down however many processes see it. The counts themselves live
-- in velocity_counts (migration 0065).
CREATE TABLE card_testing_throttles (
  merchant_account_id  text NOT NULL REFERENCES merchant_accounts (id),
  source_mac           text NOT NULL,
  -- ip_address, buyer, checkout_session or embed_token.
  source_type          text NOT NULL,
  opened_at            timestamptz(3) NOT NULL,
  throttled_until      timestamptz(3) NOT NULL,
  -- The monitoring incident raised when it opened.
  incident_id          uuid NOT NULL,
  PRIMARY KEY (merchant_account_id, source_mac)
);
