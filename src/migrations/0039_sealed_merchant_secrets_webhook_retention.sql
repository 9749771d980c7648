-- Inbound provider webhooks are purged after INBOUND_WEBHOOK_RETENTION_DAYS by received_at,
-- across merchant accounts (purge-inbound-webhook-events).
CREATE INDEX inbound_webhook_events_purge_idx ON inbound_webhook_events (received_at);
