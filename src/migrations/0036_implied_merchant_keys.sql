-- Foreign keys to merchant_accounts that another foreign key already implies. Each of these tables
-- also references a merchant table by (merchant_account_id, <not null parent id>), and that parent
-- row references merchant_accounts itself: a row whose merchant account does not exist cannot
-- pass the composite key, so the direct one checks nothing more. It did cost a check per row
-- written (a `SELECT … FOR KEY SHARE` of the one merchant_accounts row every payment of the account
-- locks): three per authorization (its attempt and two history events), more with webhook
-- deliveries, captures, refunds and payouts (decision 0100).
-- Merchant accounts are never deleted; every other foreign key stays.
ALTER TABLE transaction_attempts DROP CONSTRAINT transaction_attempts_merchant_account_id_fkey;
ALTER TABLE transaction_events DROP CONSTRAINT transaction_events_merchant_account_id_fkey;
ALTER TABLE refunds DROP CONSTRAINT refunds_merchant_account_id_fkey;
ALTER TABLE settlements DROP CONSTRAINT settlements_merchant_account_id_fkey;
ALTER TABLE payout_attempts DROP CONSTRAINT payout_attempts_merchant_account_id_fkey;
ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_merchant_account_id_fkey;
ALTER TABLE webhook_delivery_attempts DROP CONSTRAINT webhook_delivery_attempts_merchant_account_id_fkey;
