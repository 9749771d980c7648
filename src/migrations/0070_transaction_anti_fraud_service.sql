-- Issue "Risk", item 4: what a payment's anti-fraud service is told after its decision (docs/risk.md,
-- "Anti-fraud services"; decision 0143). The configured service that holds the payment's order (it
-- decided accept or review), or null: the sandbox service, no service, a rejection, no decision.
-- The authorization outcome, a void, a refund and a chargeback of such a transaction are sent to
-- that service by the `send-anti-fraud-update` job. No foreign key: a deleted service keeps the
-- transactions it screened (the job records that it could not tell it); nothing filters on it.
ALTER TABLE transactions ADD COLUMN anti_fraud_service_id uuid;
