import type { ColumnType, Insertable, Selectable, Updateable } from 'kysely';

/** Row interfaces of the insights tables (migration 0031), merged into `Database`. */

type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
type UpdatedAt = ColumnType<Date, Date | string | undefined, Date | string>;
/** JSON columns are written as JSON text. */
type Json<T> = ColumnType<T, string, string>;

export type MetricsSource = 'authentication' | 'authorization' | 'monitoring';
export type MetricName = 'volume' | 'transactions' | 'auth_rate';

export interface MetricsExplorerPresetsTable {
  merchant_account_id: string;
  id: string;
  source: MetricsSource;
  display_name: string;
  metric: MetricName;
  filters: Json<Record<string, unknown>>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface MonitoringFiltersJson {
  datetime_range: string;
  method?: Array<string | null>;
  payment_method_bin?: Array<string | null>;
  payment_method_scheme?: Array<string | null>;
  payment_service_id?: Array<string | null>;
}
export interface MonitoringSpecJson {
  model: 'auth_rate';
  params: { filters: MonitoringFiltersJson };
}
/** The spec of an incident the card-testing guard raised (docs/risk.md, "Card-testing guard"). */
export interface CardTestingSpecJson {
  model: 'card_testing';
  params: {
    source_type: string;
    distinct_declined_cards: number;
    threshold: number;
    window_minutes: number;
    max_amount: number | null;
    throttled_until: string;
  };
}
export interface AlertingPolicyJson {
  strategy: 'threshold';
  params: { alert_gt: number | null; alert_lt: number | null };
}
export interface IncidentPolicyJson {
  strategy: 'debouncing';
  params: { create_after_n: number; close_after_n: number };
}

export interface MonitoringMetricsTable {
  merchant_account_id: string;
  id: string;
  display_name: string;
  spec: Json<MonitoringSpecJson>;
  alerting_policy: Json<AlertingPolicyJson | null>;
  incident_policy: Json<IncidentPolicyJson | null>;
  alerting_policy_updated_at: UpdatedAt;
  incident_policy_updated_at: UpdatedAt;
  creator_id: string | null;
  creator_type: 'user' | 'private_key' | null;
  creator_display_name: string | null;
  evaluated_until: Date | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface MonitoringSamplesTable {
  merchant_account_id: string;
  metric_id: string;
  sampled_at: Date;
  value: number | null;
  healthy: boolean | null;
  incident_related: ColumnType<boolean, boolean | undefined, boolean>;
}

export interface MonitoringIncidentsTable {
  merchant_account_id: string;
  id: string;
  metric_id: string | null;
  display_name: string;
  spec: Json<MonitoringSpecJson | CardTestingSpecJson>;
  alerting_policy: Json<AlertingPolicyJson | null>;
  incident_policy: Json<IncidentPolicyJson | null>;
  notes: string | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
  closed_at: Date | null;
}

export type PresetRow = Selectable<MetricsExplorerPresetsTable>;
export type NewPreset = Insertable<MetricsExplorerPresetsTable>;
export type MonitoringMetricRow = Selectable<MonitoringMetricsTable>;
export type NewMonitoringMetric = Insertable<MonitoringMetricsTable>;
export type MonitoringMetricPatch = Omit<
  Updateable<MonitoringMetricsTable>,
  'merchant_account_id' | 'id' | 'created_at' | 'spec'
>;
export type MonitoringSampleRow = Selectable<MonitoringSamplesTable>;
export type MonitoringIncidentRow = Selectable<MonitoringIncidentsTable>;
export type NewMonitoringIncident = Insertable<MonitoringIncidentsTable>;

declare module './schema.ts' {
  interface Database {
    metrics_explorer_presets: MetricsExplorerPresetsTable;
    monitoring_metrics: MonitoringMetricsTable;
    monitoring_samples: MonitoringSamplesTable;
    monitoring_incidents: MonitoringIncidentsTable;
  }
}
