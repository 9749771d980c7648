-- The resource a request created before its connector call (a transaction, a payout), written in the
-- same database write as the resource. A retry that takes over the claim of a request that died
-- after that write answers with this resource instead of creating a second one (a second charge).
-- See docs/decisions.md, "Idempotent retries after a crash".
ALTER TABLE idempotency_keys ADD COLUMN resource_id text;
