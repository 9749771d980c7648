-- Flow rules (docs/routing.md): per merchant account, flow and action, an ordered list of rules.
-- The first enabled rule whose conditions all hold decides the action.
CREATE TABLE flow_rules (
  merchant_account_id  text NOT NULL REFERENCES merchant_accounts (id),
  id                   uuid NOT NULL,
  flow                 text NOT NULL,
  action               text NOT NULL,
  -- 1-based order within (merchant_account_id, flow, action); rewritten whole by a reorder.
  position             integer NOT NULL CHECK (position > 0),
  description          text,
  enabled              boolean NOT NULL DEFAULT true,
  conditions           jsonb NOT NULL,
  outcome              jsonb NOT NULL,
  created_at           timestamptz(3) NOT NULL DEFAULT now(),
  updated_at           timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (merchant_account_id, id),
  CHECK (flow IN ('checkout', 'card-transaction', 'non-card-transaction', 'redirect-transaction')),
  CHECK (action IN ('select-payment-options', 'route-transaction', 'decline-early', 'skip-3ds'))
);
-- The list in order (keyset on position, id) and the cache's load of an account's rules.
CREATE INDEX flow_rules_order_idx ON flow_rules (merchant_account_id, flow, action, position, id);
