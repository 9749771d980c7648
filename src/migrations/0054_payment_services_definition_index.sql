-- The start-up check of a production server (docs/production.md): the payment services, across
-- merchant accounts, still made with a sandbox connector.
CREATE INDEX payment_services_definition_idx ON payment_services (payment_service_definition_id, merchant_account_id, id) WHERE NOT is_deleted;
