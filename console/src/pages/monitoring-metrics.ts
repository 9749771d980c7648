/** A monitoring metric's state for the page: its latest sample, how many of the window were unhealthy, its thresholds. */

export interface MetricSample {
  timestamp: string;
  value: number | null;
  healthy: boolean | null;
  incident_related: boolean;
}

export interface MetricPolicies {
  alerting_policy: { params: { alert_gt: number | null; alert_lt: number | null } } | null;
  incident_policy: { params: { create_after_n: number; close_after_n: number } } | null;
  samples_view: MetricSample[];
}

const pct = (value: number) => `${(value * 100).toFixed(1)} %`;

export function metricSummary(metric: MetricPolicies): {
  latest: number | null;
  healthy: boolean | null;
  unhealthy: number;
  samples: number;
  thresholds: string;
  incidents: string;
} {
  const valued = metric.samples_view.filter((s) => s.value !== null);
  const last = valued[valued.length - 1];
  const alert = metric.alerting_policy?.params;
  const bounds = [
    alert?.alert_lt != null ? `below ${pct(alert.alert_lt)}` : null,
    alert?.alert_gt != null ? `above ${pct(alert.alert_gt)}` : null,
  ].filter(Boolean);
  const policy = metric.incident_policy?.params;
  return {
    latest: last?.value ?? null,
    healthy: last?.healthy ?? null,
    unhealthy: metric.samples_view.filter((s) => s.healthy === false).length,
    samples: metric.samples_view.length,
    thresholds: bounds.length ? `Alerts ${bounds.join(' or ')}` : 'No alerting threshold',
    incidents: policy
      ? `Opens after ${policy.create_after_n} unhealthy samples, closes after ${policy.close_after_n} healthy ones`
      : 'Opens no incident',
  };
}
