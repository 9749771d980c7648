-- Refund.settled (issue 49): true once the refund's settlement record exists. A column rather
-- than a join: every refund read (lists, webhooks, the create answer) renders it from the row, so
-- no read looks at settlements. Set by the settlement's own statement (settleRefund).
ALTER TABLE refunds ADD COLUMN settled boolean NOT NULL DEFAULT false;

-- Refunds settled before this migration.
UPDATE refunds AS r SET settled = true
WHERE EXISTS (
  SELECT 1 FROM settlements AS s
  WHERE s.merchant_account_id = r.merchant_account_id AND s.transaction_id = r.transaction_id AND s.refund_id = r.id
);
