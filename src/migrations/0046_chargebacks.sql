-- Chargebacks and chargeback reversals: ledger lines of a payment service's settlement reports
-- (GET /transactions/{id}/chargebacks, GET .../chargeback-reversals), the same fields as a
-- settlement. The sandbox writes them when a dispute test card settles; a real connector's lines
-- come from its provider's reports, and `report_line_id` (the provider's id of the line) with the
-- payment service makes a report ingested twice add nothing. The foreign key to the transaction
-- implies the merchant account (migration 0036).
CREATE TABLE chargebacks (
  merchant_account_id       text NOT NULL,
  id                        uuid NOT NULL,
  transaction_id            uuid NOT NULL,
  kind                      text NOT NULL CHECK (kind IN ('chargeback', 'chargeback-reversal')),
  payment_service_id        uuid NOT NULL,
  report_line_id            text NOT NULL,
  currency                  text NOT NULL,
  amount                    bigint NOT NULL,
  exchange_rate             double precision,
  commission                bigint NOT NULL DEFAULT 0,
  interchange               bigint,
  markup                    bigint,
  scheme_fee                bigint,
  payment_service_report_id text NOT NULL,
  payment_service_report_file_ids jsonb NOT NULL DEFAULT '[]',
  posted_at                 timestamptz(3) NOT NULL,
  ingested_at               timestamptz(3) NOT NULL,
  created_at                timestamptz(3) NOT NULL DEFAULT now(),
  updated_at                timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (merchant_account_id, id),
  FOREIGN KEY (merchant_account_id, transaction_id) REFERENCES transactions (merchant_account_id, id)
);
CREATE UNIQUE INDEX chargebacks_report_line_idx ON chargebacks (merchant_account_id, payment_service_id, report_line_id);
CREATE INDEX chargebacks_txn_idx ON chargebacks (merchant_account_id, transaction_id, kind, posted_at, id);
