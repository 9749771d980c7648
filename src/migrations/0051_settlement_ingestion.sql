-- Settlements from the providers (issue 50, docs/settlements.md). A real connector's settlement
-- records are lines of its provider's reports, ingested per payment service by the
-- `ingest-settlements` job; the sandbox connectors keep their simulation.

-- A provider line's id (`report_line_id`, unique per payment service) makes a report ingested
-- twice add nothing. The sandbox's records have none and keep their own key: one per capture, per
-- refund, and one of the whole captured amount (settlements_once_idx, now for them only), since a
-- provider may report several lines for one transaction (one per capture of a multi-capture, a
-- refund in two lines).
ALTER TABLE settlements ADD COLUMN payment_service_id uuid;
ALTER TABLE settlements ADD COLUMN report_line_id text;
ALTER TABLE settlements ADD CONSTRAINT settlements_report_line_service_ck CHECK (report_line_id IS NULL OR payment_service_id IS NOT NULL);
CREATE UNIQUE INDEX settlements_report_line_idx ON settlements (merchant_account_id, payment_service_id, report_line_id) WHERE report_line_id IS NOT NULL;
DROP INDEX settlements_once_idx;
CREATE UNIQUE INDEX settlements_once_idx ON settlements (merchant_account_id, transaction_id, (coalesce(refund_id, capture_attempt_id, '00000000-0000-0000-0000-000000000000'::uuid))) WHERE report_line_id IS NULL;

-- A refund line names the provider's refund: our refund is found by it (transactions are found by
-- their provider id through transactions_psp_id_idx, migration 0011).
CREATE INDEX refunds_psp_id_idx ON refunds (merchant_account_id, payment_service_refund_id) WHERE payment_service_refund_id IS NOT NULL;

-- Where each payment service's ingestion stands: the listing's start (`since`), the connector's
-- cursor after the last page written (a restarted job resumes there), the last run and its error,
-- and the lines counted so far.
CREATE TABLE settlement_ingestions (
  merchant_account_id text NOT NULL,
  payment_service_id  uuid NOT NULL,
  since               timestamptz(3) NOT NULL,
  cursor              text,
  last_run_at         timestamptz(3),
  last_success_at     timestamptz(3),
  last_error          text,
  lines_written       bigint NOT NULL DEFAULT 0,
  lines_duplicate     bigint NOT NULL DEFAULT 0,
  lines_unmatched     bigint NOT NULL DEFAULT 0,
  created_at          timestamptz(3) NOT NULL DEFAULT now(),
  updated_at          timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (merchant_account_id, payment_service_id),
  FOREIGN KEY (merchant_account_id, payment_service_id) REFERENCES payment_services (merchant_account_id, id)
);
