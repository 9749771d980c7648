-- Inbound provider webhooks (issue 20): one row per provider event received on a payment
-- service's webhook endpoint, so a replayed event (providers resend until they get a 2xx, and
-- an attacker may replay a captured one) changes nothing the second time. The primary key is the
-- deduplication: (merchant account, payment service, the provider's own event id). Only what was
-- done is kept (our action kinds, transaction ids, results), never the provider's raw body.
CREATE TABLE inbound_webhook_events (
  merchant_account_id  text NOT NULL REFERENCES merchant_accounts (id),
  payment_service_id   uuid NOT NULL,
  event_id             text NOT NULL CHECK (length(event_id) BETWEEN 1 AND 255),
  id                   uuid NOT NULL,
  -- [{kind, provider_transaction_id, transaction_id, result}] as applied.
  actions              jsonb NOT NULL DEFAULT '[]',
  received_at          timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (merchant_account_id, payment_service_id, event_id),
  FOREIGN KEY (merchant_account_id, payment_service_id) REFERENCES payment_services (merchant_account_id, id)
);
-- Newest first per payment service (support look-ups, purging old rows).
CREATE INDEX inbound_webhook_events_received_idx ON inbound_webhook_events (merchant_account_id, payment_service_id, received_at DESC);
