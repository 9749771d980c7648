-- Insights (docs/insights.md): saved filter presets of the metrics explorer, and monitoring of the
-- authorization rate with samples and incidents.

-- Metrics explorer presets: at most 10 per merchant account and source (checked under a lock).
CREATE TABLE metrics_explorer_presets (
  merchant_account_id  text NOT NULL REFERENCES merchant_accounts (id),
  id                   uuid NOT NULL,
  source               text NOT NULL CHECK (source IN ('authentication', 'authorization', 'monitoring')),
  display_name         text NOT NULL,
  metric               text NOT NULL CHECK (metric IN ('volume', 'transactions', 'auth_rate')),
  filters              jsonb NOT NULL,
  created_at           timestamptz(3) NOT NULL DEFAULT now(),
  updated_at           timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (merchant_account_id, id)
);
CREATE INDEX metrics_explorer_presets_source_idx ON metrics_explorer_presets (merchant_account_id, source, created_at, id);

-- A monitored metric: the authorization rate over a sliding window, sampled every minute.
CREATE TABLE monitoring_metrics (
  merchant_account_id         text NOT NULL REFERENCES merchant_accounts (id),
  id                          uuid NOT NULL,
  display_name                text NOT NULL,
  spec                        jsonb NOT NULL,
  alerting_policy             jsonb,
  incident_policy             jsonb,
  alerting_policy_updated_at  timestamptz(3) NOT NULL DEFAULT now(),
  incident_policy_updated_at  timestamptz(3) NOT NULL DEFAULT now(),
  creator_id                  text,
  creator_type                text CHECK (creator_type IN ('user', 'private_key')),
  creator_display_name        text,
  -- The last minute evaluated: the evaluator claims the next minute with a guarded update, so each
  -- minute is sampled once whichever process runs the job.
  evaluated_until             timestamptz(3),
  created_at                  timestamptz(3) NOT NULL DEFAULT now(),
  updated_at                  timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (merchant_account_id, id)
);
CREATE INDEX monitoring_metrics_list_idx ON monitoring_metrics (merchant_account_id, created_at DESC, id DESC);
-- The evaluator's scan across merchant accounts for metrics whose next minute is due.
CREATE INDEX monitoring_metrics_due_idx ON monitoring_metrics (evaluated_until);

CREATE TABLE monitoring_samples (
  merchant_account_id  text NOT NULL,
  metric_id            uuid NOT NULL,
  -- The end of the minute the sample closes (the window ends here).
  sampled_at           timestamptz(3) NOT NULL,
  value                double precision,
  healthy              boolean,
  incident_related     boolean NOT NULL DEFAULT false,
  PRIMARY KEY (merchant_account_id, metric_id, sampled_at),
  FOREIGN KEY (merchant_account_id, metric_id) REFERENCES monitoring_metrics (merchant_account_id, id) ON DELETE CASCADE
);

CREATE TABLE monitoring_incidents (
  merchant_account_id  text NOT NULL REFERENCES merchant_accounts (id),
  id                   uuid NOT NULL,
  -- Null once the metric is deleted: the incident keeps its snapshot.
  metric_id            uuid,
  display_name         text NOT NULL,
  spec                 jsonb NOT NULL,
  alerting_policy      jsonb,
  incident_policy      jsonb,
  notes                text,
  created_at           timestamptz(3) NOT NULL DEFAULT now(),
  updated_at           timestamptz(3) NOT NULL DEFAULT now(),
  closed_at            timestamptz(3),
  PRIMARY KEY (merchant_account_id, id),
  FOREIGN KEY (merchant_account_id, metric_id) REFERENCES monitoring_metrics (merchant_account_id, id) ON DELETE SET NULL (metric_id)
);
CREATE INDEX monitoring_incidents_list_idx ON monitoring_incidents (merchant_account_id, created_at DESC, id DESC);
CREATE INDEX monitoring_incidents_metric_idx ON monitoring_incidents (merchant_account_id, metric_id, created_at DESC, id DESC) WHERE metric_id IS NOT NULL;
-- At most one open incident per metric.
CREATE UNIQUE INDEX monitoring_incidents_open_idx ON monitoring_incidents (merchant_account_id, metric_id) WHERE closed_at IS NULL AND metric_id IS NOT NULL;
