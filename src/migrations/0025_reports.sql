-- Reports (what to export, on which schedule) and their executions (one CSV file each), see
-- docs/reports.md. A scheduled report carries the instant of its next execution; the scheduler job
-- takes due reports with a row lock, and the unique (report, reference time) index makes each
-- scheduled execution exist once whatever the number of processes.
CREATE TABLE reports (
  merchant_account_id   text NOT NULL REFERENCES merchant_accounts (id),
  id                    uuid NOT NULL,
  name                  text NOT NULL,
  description           text,
  schedule              text NOT NULL CHECK (schedule IN ('once', 'daily', 'weekly', 'monthly')),
  schedule_enabled      boolean NOT NULL,
  schedule_timezone     text NOT NULL,
  spec                  jsonb NOT NULL,
  creator_id            uuid,
  creator_display_name  text,
  creator_type          text CHECK (creator_type IN ('user', 'private_key')),
  reveal_pii            boolean NOT NULL DEFAULT false,
  next_execution_at     timestamptz(3),
  created_at            timestamptz(3) NOT NULL DEFAULT now(),
  updated_at            timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (merchant_account_id, id)
);

CREATE INDEX reports_list_idx ON reports (merchant_account_id, created_at DESC, id DESC);
CREATE INDEX reports_schedule_idx ON reports (merchant_account_id, schedule, created_at DESC, id DESC);
CREATE INDEX reports_enabled_idx ON reports (merchant_account_id, schedule_enabled, created_at DESC, id DESC);
-- `name` / `report_name` are infix matches (LIKE '%…%'): no b-tree helps; they scan one merchant's
-- reports, a small set, through reports_list_idx.
CREATE INDEX reports_creator_idx ON reports (merchant_account_id, creator_id);
-- The scheduler's scan: due reports across merchant accounts.
CREATE INDEX reports_due_idx ON reports (next_execution_at) WHERE schedule_enabled AND next_execution_at IS NOT NULL;

CREATE TABLE report_executions (
  merchant_account_id   text NOT NULL,
  id                    uuid NOT NULL,
  report_id             uuid NOT NULL,
  status                text NOT NULL CHECK (status IN ('pending', 'processing', 'succeeded', 'failed', 'dispatched')),
  reference_timestamp   timestamptz(3) NOT NULL,
  reference_timezone    text NOT NULL,
  -- Where the file is in the storage backend; null until written and after the retention purge.
  file_key              text,
  row_count             bigint,
  size                  bigint,
  error_code            text,
  error_message         text,
  created_at            timestamptz(3) NOT NULL DEFAULT now(),
  updated_at            timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (merchant_account_id, id),
  FOREIGN KEY (merchant_account_id, report_id) REFERENCES reports (merchant_account_id, id)
);

-- One execution per report and reference time: two schedulers racing on the same due run insert one row.
CREATE UNIQUE INDEX report_executions_once_idx ON report_executions (merchant_account_id, report_id, reference_timestamp);
CREATE INDEX report_executions_list_idx ON report_executions (merchant_account_id, created_at DESC, id DESC);
CREATE INDEX report_executions_report_idx ON report_executions (merchant_account_id, report_id, created_at DESC, id DESC);
CREATE INDEX report_executions_status_idx ON report_executions (merchant_account_id, status, created_at DESC, id DESC);
-- The retention purge: oldest executions across merchant accounts.
CREATE INDEX report_executions_age_idx ON report_executions (created_at);

-- The reports' own indexes: settlements and attempts by time (detailed_settlement, transaction_retries, accounts_receivables).
CREATE INDEX settlements_ingested_idx ON settlements (merchant_account_id, ingested_at);
CREATE INDEX settlements_posted_idx ON settlements (merchant_account_id, posted_at);
CREATE INDEX transaction_attempts_created_idx ON transaction_attempts (merchant_account_id, operation, created_at);
