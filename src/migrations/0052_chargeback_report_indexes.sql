-- The detailed_settlement report lists chargebacks and reversals with the settlements (issue 50):
-- their lines are filtered by the same times, as settlements are (migration 0025).
CREATE INDEX chargebacks_ingested_idx ON chargebacks (merchant_account_id, ingested_at);
CREATE INDEX chargebacks_posted_idx ON chargebacks (merchant_account_id, posted_at);
