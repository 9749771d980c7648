import type { Deps } from '../../context.ts';
import type { MonitoringFiltersJson, MonitoringMetricRow } from '../../db/schema-insights.ts';
import { withTransaction, type Tx } from '../../db/transaction.ts';
import { uuidv7 } from '../../lib/ids.ts';
import { emitEvent } from '../events/events.service.ts';
import { parseInterval } from '../metrics-explorer/datetime-range.ts';
import { NULL_VALUE } from '../metrics-explorer/dimensions.ts';
import { metricValue } from '../metrics-explorer/metric-values.ts';
import type { Filters } from '../metrics-explorer/metrics-explorer.schemas.ts';
import { countsIn } from '../metrics-explorer/metrics.repo.ts';
import { filterConditions } from '../metrics-explorer/metrics.service.ts';
import * as repo from './monitoring.repo.ts';
import { INCIDENT_TYPE, toIncidentResource } from './monitoring.schemas.ts';
import { debounce, healthOf, incidentStep } from './sample-health.ts';

/**
 * The evaluator: once a minute each metric gets one sample (the authorization rate over its window
 * ending at that minute), judged by its alerting policy; runs of judged samples open and close
 * incidents, announced by `monitoring.incident.created` / `.closed` webhook events. A minute no
 * process evaluated (every worker down) is not sampled afterwards: samples describe what was seen.
 */

const MINUTE = 60_000;

/** The explorer's filters for a monitoring spec (null selects transactions without a value). */
function explorerFilters(f: MonitoringFiltersJson): Filters {
  const values = (list: Array<string | null> | undefined) => list?.map((v) => v ?? NULL_VALUE);
  return {
    method: values(f.method),
    payment_method_bin: values(f.payment_method_bin),
    payment_method_scheme: values(f.payment_method_scheme),
    payment_service: values(f.payment_service_id),
  };
}

async function sampleValue(tx: Tx, metric: MonitoringMetricRow, minute: Date): Promise<number | null> {
  const filters = metric.spec.params.filters;
  const window = parseInterval(filters.datetime_range, minute);
  const counts = await countsIn(tx, {
    merchantAccountId: metric.merchant_account_id,
    source: 'monitoring',
    window,
    filters: filterConditions(explorerFilters(filters)),
    currency: null,
  });
  return metricValue('auth_rate', counts);
}

async function announce(
  tx: Tx,
  deps: Deps,
  kind: 'created' | 'closed',
  row: Parameters<typeof toIncidentResource>[0],
): Promise<void> {
  await emitEvent(tx, deps, {
    merchantAccountId: row.merchant_account_id,
    kind: `monitoring.incident.${kind}`,
    resourceType: INCIDENT_TYPE,
    resourceId: row.id,
    payload: toIncidentResource(row),
  });
}

/** Opens or closes the metric's incident after its newest sample. */
async function applyIncidentPolicy(tx: Tx, deps: Deps, metric: MonitoringMetricRow, minute: Date): Promise<void> {
  const { open, close } = debounce(metric.incident_policy);
  const recent = await repo.latestSamples(tx, metric.merchant_account_id, metric.id, Math.max(open, close));
  const incident = await repo.openIncident(tx, metric.merchant_account_id, metric.id);
  const step = incidentStep(
    recent.map((s) => s.healthy),
    incident !== undefined,
    metric.incident_policy,
  );
  if (incident) await repo.markIncidentRelated(tx, metric.merchant_account_id, metric.id, minute);
  if (step === 'open') {
    const row = await repo.insertIncident(tx, {
      merchant_account_id: metric.merchant_account_id,
      id: uuidv7(),
      metric_id: metric.id,
      display_name: metric.display_name,
      spec: JSON.stringify(metric.spec),
      alerting_policy: JSON.stringify(metric.alerting_policy),
      incident_policy: JSON.stringify(metric.incident_policy),
      notes: null,
      closed_at: null,
    });
    await repo.markIncidentRelated(tx, metric.merchant_account_id, metric.id, recent[open - 1]!.sampled_at);
    await announce(tx, deps, 'created', row);
  } else if (step === 'close' && incident) {
    const row = await repo.updateIncident(tx, metric.merchant_account_id, incident.id, { closed_at: minute }, minute);
    await announce(tx, deps, 'closed', row!);
  }
}

/** Takes one metric's sample of `minute`, unless another process already did. True when this call took it. */
export async function evaluateMetric(
  deps: Deps,
  merchantAccountId: string,
  metricId: string,
  minute: Date,
): Promise<boolean> {
  return withTransaction(deps.db, async (tx) => {
    const metric = await repo.claimMinute(tx, merchantAccountId, metricId, minute);
    if (!metric) return false;
    const value = await sampleValue(tx, metric, minute);
    await repo.insertSample(tx, {
      merchant_account_id: merchantAccountId,
      metric_id: metricId,
      sampled_at: minute,
      value,
      healthy: healthOf(value, metric.alerting_policy),
      incident_related: false,
    });
    if (metric.alerting_policy) await applyIncidentPolicy(tx, deps, metric, minute);
    return true;
  });
}

/**
 * Samples every metric due at the minute `now` falls in; returns how many samples this call took.
 * A metric whose evaluation fails is logged and left for the next minute, so it cannot hold up the others.
 */
export async function evaluateDueMetrics(
  deps: Deps,
  now: Date,
  log: { warn(obj: object, msg?: string): void },
): Promise<number> {
  const minute = new Date(Math.floor(now.getTime() / MINUTE) * MINUTE);
  const failed = new Set<string>();
  let taken = 0;
  for (;;) {
    const due = (await repo.dueMetrics(deps.db, minute, 100 + failed.size)).filter((m) => !failed.has(m.id));
    for (const m of due) {
      try {
        if (await evaluateMetric(deps, m.merchant_account_id, m.id, minute)) taken++;
      } catch (error) {
        failed.add(m.id);
        log.warn(
          { err: error, merchant_account_id: m.merchant_account_id, metric_id: m.id },
          'monitoring metric evaluation failed',
        );
      }
    }
    if (due.length === 0) return taken;
  }
}
