-- Vault forwarding configurations (one per target definition per merchant account) and their
-- authentication methods (request signing, mutual TLS, message-level encryption). The hosts of a
-- merchant account's configs are its production allow-list for POST /vault-forward
-- (docs/vault-forward.md). Secret field values are sealed by the vault, bound to their row.
CREATE TABLE vault_forward_configs (
  merchant_account_id  text NOT NULL REFERENCES merchant_accounts (id),
  id                   uuid NOT NULL,
  -- A definition of the built-in catalogue (src/modules/vault-forward/definitions.ts).
  definition_id        text NOT NULL,
  display_name         text NOT NULL,
  -- The merchant's own hosts (the `custom` definition only); null: the definition's hosts.
  hosts                jsonb,
  -- {id, name, email_address} of the API key pair that created it.
  creator              jsonb,
  created_at           timestamptz(3) NOT NULL DEFAULT now(),
  updated_at           timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (merchant_account_id, id)
);
-- "Only 1 configuration may exist at a time for a given definition."
CREATE UNIQUE INDEX vault_forward_configs_definition_key ON vault_forward_configs (merchant_account_id, definition_id);
-- The list, newest first.
CREATE INDEX vault_forward_configs_list_idx ON vault_forward_configs (merchant_account_id, created_at DESC, id DESC);

CREATE TABLE vault_forward_authentications (
  merchant_account_id  text NOT NULL,
  id                   uuid NOT NULL,
  config_id            uuid NOT NULL,
  kind                 text NOT NULL CHECK (kind IN ('mle', 'mtls', 'signature')),
  display_name         text NOT NULL,
  -- A hint that is no secret (key id, certificate subject and expiry, algorithms).
  label                text NOT NULL,
  -- Fields that are not secret, by key.
  fields               jsonb NOT NULL DEFAULT '{}',
  -- Secret fields by key: {ciphertext, keyId}, sealed with the binding `field:<key>` of this row.
  sealed_fields        jsonb NOT NULL DEFAULT '{}',
  creator              jsonb,
  created_at           timestamptz(3) NOT NULL DEFAULT now(),
  updated_at           timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (merchant_account_id, id),
  -- Deleting a config deletes its authentication methods and their sealed secrets with it.
  FOREIGN KEY (merchant_account_id, config_id) REFERENCES vault_forward_configs (merchant_account_id, id) ON DELETE CASCADE
);
-- A config's authentication methods, oldest first.
CREATE INDEX vault_forward_authentications_config_idx ON vault_forward_authentications (merchant_account_id, config_id, created_at, id);
