-- Configured payment services (connections to a payment service definition of the connector
-- registry), per merchant account. See decisions 0045 and 0048.

CREATE TABLE payment_services (
  merchant_account_id                 text NOT NULL REFERENCES merchant_accounts (id),
  id                                  uuid NOT NULL,
  -- A connector id of the registry (`mock-card`); the catalogue is code, not a table.
  payment_service_definition_id       text NOT NULL,
  method                              text NOT NULL,
  display_name                        text NOT NULL,
  -- Routing order within the merchant account (ties: oldest first). Not unique.
  position                            integer NOT NULL,
  active                              boolean NOT NULL DEFAULT true,
  status                              text NOT NULL DEFAULT 'created' CHECK (status IN ('pending', 'created', 'failed')),
  accepted_currencies                 text[] NOT NULL,
  accepted_countries                  text[] NOT NULL,
  three_d_secure_enabled              boolean NOT NULL DEFAULT false,
  payment_method_tokenization_enabled boolean NOT NULL DEFAULT false,
  network_tokens_enabled              boolean NOT NULL DEFAULT false,
  open_loop                           boolean NOT NULL DEFAULT false,
  settlement_reporting_enabled        boolean NOT NULL DEFAULT false,
  -- {card scheme: MerchantProfileScheme + created_at}.
  merchant_profile                    jsonb,
  -- Non-secret credential and reporting field values, {key: value}.
  fields                              jsonb NOT NULL DEFAULT '{}',
  reporting_fields                    jsonb NOT NULL DEFAULT '{}',
  -- Secret values, {"field:<key>" | "reporting_field:<key>": {ciphertext, keyId}}: AES-256-GCM under
  -- the merchant's data key, bound to this row and that map key. Emptied when the service is deleted.
  sealed_fields                       jsonb NOT NULL DEFAULT '{}',
  is_deleted                          boolean NOT NULL DEFAULT false,
  created_at                          timestamptz(3) NOT NULL DEFAULT now(),
  updated_at                          timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (merchant_account_id, id)
);
-- The list: newest first, `deleted` (is_deleted = $deleted) always applies; `method` optionally.
CREATE INDEX payment_services_list_idx ON payment_services (merchant_account_id, is_deleted, created_at DESC, id DESC);
CREATE INDEX payment_services_method_idx ON payment_services (merchant_account_id, method, is_deleted, created_at DESC, id DESC);
-- Routing: the usable services of an account in routing order.
CREATE INDEX payment_services_routing_idx ON payment_services (merchant_account_id, position, created_at, id) WHERE active AND NOT is_deleted;
