-- Account updater: a job asks the (simulated) card networks about stored cards; one inquiry per card.

CREATE TABLE account_updater_jobs (
  merchant_account_id text NOT NULL REFERENCES merchant_accounts (id),
  id                  uuid NOT NULL,
  -- `processing` until every inquiry has an outcome.
  status              text NOT NULL DEFAULT 'processing' CHECK (status IN ('processing', 'completed')),
  created_at          timestamptz(3) NOT NULL DEFAULT now(),
  updated_at          timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (merchant_account_id, id)
);
CREATE INDEX account_updater_jobs_created_idx ON account_updater_jobs (merchant_account_id, created_at DESC, id DESC);

CREATE TABLE account_updater_inquiries (
  merchant_account_id text NOT NULL,
  id                  uuid NOT NULL,
  job_id              uuid NOT NULL,
  payment_method_id   uuid NOT NULL,
  status              text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'completed')),
  -- What the updater answered (decision 0040).
  outcome             text CHECK (outcome IN ('no_change', 'expiration_date_updated', 'number_updated', 'closed')),
  created_at          timestamptz(3) NOT NULL DEFAULT now(),
  updated_at          timestamptz(3) NOT NULL DEFAULT now(),
  completed_at        timestamptz(3),
  PRIMARY KEY (merchant_account_id, id),
  FOREIGN KEY (merchant_account_id, job_id) REFERENCES account_updater_jobs (merchant_account_id, id) ON DELETE CASCADE,
  -- A deleted payment method takes its inquiries with it.
  FOREIGN KEY (merchant_account_id, payment_method_id) REFERENCES payment_methods (merchant_account_id, id) ON DELETE CASCADE
);
CREATE INDEX account_updater_inquiries_job_idx ON account_updater_inquiries (merchant_account_id, job_id, id);
-- At most one inquiry in progress per payment method.
CREATE UNIQUE INDEX account_updater_inquiries_in_progress_idx ON account_updater_inquiries (merchant_account_id, payment_method_id) WHERE status = 'pending';
