-- Events and webhooks (docs/webhooks.md): subscriptions, the event outbox, one delivery per event
-- and subscription, and the history of delivery attempts.

CREATE TABLE webhook_subscriptions (
  merchant_account_id  text NOT NULL REFERENCES merchant_accounts (id),
  id                   uuid NOT NULL,
  url                  text NOT NULL,
  active               boolean NOT NULL DEFAULT true,
  -- The signing secret, encrypted by the vault (column `secret`); a rotation keeps the previous one
  -- valid until previous_secret_expires_at, and deliveries are signed with both meanwhile.
  secret_ciphertext    text NOT NULL,
  secret_key_id        uuid NOT NULL,
  -- The last 4 characters of the current secret, shown in masked responses (`whsec_…abcd`) so that
  -- the secret in use can be recognised without opening it (24 of its 256+ bits).
  secret_hint          text NOT NULL DEFAULT '',
  previous_secret_ciphertext text,
  previous_secret_key_id     uuid,
  previous_secret_expires_at timestamptz(3),
  -- Basic authentication: the password encrypted by the vault (column `password`).
  auth_kind            text CHECK (auth_kind IN ('basic')),
  auth_username        text,
  auth_password_ciphertext text,
  auth_password_key_id uuid,
  creator              jsonb,
  created_at           timestamptz(3) NOT NULL DEFAULT now(),
  updated_at           timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (merchant_account_id, id),
  CHECK ((previous_secret_ciphertext IS NULL) = (previous_secret_expires_at IS NULL)),
  CHECK ((auth_kind IS NULL) = (auth_password_ciphertext IS NULL))
);
CREATE INDEX webhook_subscriptions_list_idx ON webhook_subscriptions (merchant_account_id, created_at DESC, id DESC);
CREATE INDEX webhook_subscriptions_active_idx ON webhook_subscriptions (merchant_account_id) WHERE active;

-- The outbox: written in the same database transaction as the change it records.
CREATE TABLE events (
  merchant_account_id  text NOT NULL REFERENCES merchant_accounts (id),
  id                   uuid NOT NULL,
  kind                 text NOT NULL,
  resource_type        text NOT NULL,
  resource_id          text NOT NULL,
  -- The resource as it was at that moment (masked like a response without PII scopes).
  payload              jsonb NOT NULL,
  created_at           timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (merchant_account_id, id)
);
CREATE INDEX events_resource_idx ON events (merchant_account_id, resource_id, created_at, id);

-- One delivery per (event, subscription); retried by the deliver-webhook job until it succeeds or
-- gives up. Deliveries of one resource to one subscription go out in event order.
CREATE TABLE webhook_deliveries (
  merchant_account_id  text NOT NULL REFERENCES merchant_accounts (id),
  id                   uuid NOT NULL,
  subscription_id      uuid NOT NULL,
  event_id             uuid NOT NULL,
  resource_id          text NOT NULL,
  status               text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
  attempts             integer NOT NULL DEFAULT 0,
  next_attempt_at      timestamptz(3),
  give_up_at           timestamptz(3) NOT NULL,
  last_status_code     integer,
  last_error           text,
  delivered_at         timestamptz(3),
  created_at           timestamptz(3) NOT NULL DEFAULT now(),
  updated_at           timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (merchant_account_id, id),
  UNIQUE (merchant_account_id, event_id, subscription_id),
  FOREIGN KEY (merchant_account_id, subscription_id) REFERENCES webhook_subscriptions (merchant_account_id, id) ON DELETE CASCADE,
  FOREIGN KEY (merchant_account_id, event_id) REFERENCES events (merchant_account_id, id)
);
CREATE INDEX webhook_deliveries_subscription_idx ON webhook_deliveries (merchant_account_id, subscription_id, created_at DESC, id DESC);
-- Order per resource: a delivery waits for the earlier pending ones of its resource and subscription.
CREATE INDEX webhook_deliveries_order_idx ON webhook_deliveries (merchant_account_id, subscription_id, resource_id, created_at) WHERE status = 'pending';

CREATE TABLE webhook_delivery_attempts (
  merchant_account_id  text NOT NULL REFERENCES merchant_accounts (id),
  id                   uuid NOT NULL,
  delivery_id          uuid NOT NULL,
  status_code          integer,
  duration_ms          integer NOT NULL,
  error                text,
  created_at           timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (merchant_account_id, id),
  FOREIGN KEY (merchant_account_id, delivery_id) REFERENCES webhook_deliveries (merchant_account_id, id) ON DELETE CASCADE
);
CREATE INDEX webhook_delivery_attempts_delivery_idx ON webhook_delivery_attempts (merchant_account_id, delivery_id, created_at);
