-- Issue "Risk", item 4: anti-fraud services as connectors of their own (docs/risk.md, "Anti-fraud
-- services"; decision 0139). A merchant account's configured service: its definition
-- (`riskified-anti-fraud`, ...), its settings, and its secret credentials sealed per field in the
-- vault (`sealed_fields`, bound to this table, the row and the key), never returned.
CREATE TABLE anti_fraud_services (
  merchant_account_id              text NOT NULL REFERENCES merchant_accounts (id),
  id                               uuid NOT NULL,
  anti_fraud_service_definition_id text NOT NULL,
  display_name                     text NOT NULL,
  active                           boolean NOT NULL DEFAULT true,
  fields                           jsonb NOT NULL DEFAULT '{}',
  sealed_fields                    jsonb NOT NULL DEFAULT '{}',
  created_at                       timestamptz(3) NOT NULL DEFAULT now(),
  updated_at                       timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (merchant_account_id, id)
);
-- At most one active service per merchant account: every payment asks that one (a second create
-- while one is active is a 409 naming it).
CREATE UNIQUE INDEX anti_fraud_services_active_key ON anti_fraud_services (merchant_account_id) WHERE active;

-- Every authorization asks which service is active: each process keeps the answer per merchant
-- account (readCaches.antiFraudServices), so the hot path sends no statement for it; a write
-- anywhere tells every process to forget that account's copy (migration 0034's trigger).
CREATE TRIGGER anti_fraud_services_notify_change
  AFTER INSERT OR UPDATE OR DELETE ON anti_fraud_services
  FOR EACH ROW EXECUTE FUNCTION svc_notify_change();
