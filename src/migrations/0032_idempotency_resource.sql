-- The resource a request created before its connector call (a transaction, a payout), written in the
-- same database write as the resource. A retry that takes over the claim of a request that died
-- after that write answers with this resource instead of creating a second one (a second charge).
-- See decision 0081 (docs/decisions/0081-idempotent-retries-after-a-crash.md).
ALTER TABLE idempotency_keys ADD COLUMN resource_id text;
