import type { AlertingPolicyJson, IncidentPolicyJson } from '../../db/schema-insights.ts';

/**
 * How a sample is judged and when incidents open and close (the published model: "alert delay" is
 * the number of consecutive breaching samples that opens an alert; the same count of healthy
 * samples closes it, here each count of its own).
 */

/** Unhealthy above `alert_gt` or below `alert_lt`; null without a policy or a value. */
export function healthOf(value: number | null, policy: AlertingPolicyJson | null): boolean | null {
  if (!policy || value === null) return null;
  const { alert_gt: gt, alert_lt: lt } = policy.params;
  return !((gt !== null && value > gt) || (lt !== null && value < lt));
}

/** Without an incident policy, one unhealthy sample opens an incident and one healthy sample closes it. */
export function debounce(policy: IncidentPolicyJson | null): { open: number; close: number } {
  return policy ? { open: policy.params.create_after_n, close: policy.params.close_after_n } : { open: 1, close: 1 };
}

export type IncidentStep = 'open' | 'close' | 'none';

/**
 * What the newest sample does, given the latest samples' health newest first. A sample without a
 * judgement (null) breaks a run either way: nothing processed is neither a breach nor a recovery.
 */
export function incidentStep(
  recentHealth: Array<boolean | null>,
  incidentOpen: boolean,
  policy: IncidentPolicyJson | null,
): IncidentStep {
  const { open, close } = debounce(policy);
  const run = (n: number, healthy: boolean) =>
    recentHealth.length >= n && recentHealth.slice(0, n).every((h) => h === healthy);
  if (!incidentOpen) return run(open, false) ? 'open' : 'none';
  return run(close, true) ? 'close' : 'none';
}
