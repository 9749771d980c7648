import { creatorType, withRequestTransaction, type RequestContext } from '../../context.ts';
import type { MonitoringMetricPatch, MonitoringMetricRow } from '../../db/schema-insights.ts';
import { fieldRefusal, notFound } from '../../errors/app-error.ts';
import { listPage, type ListEnvelope } from '../../http/pagination.ts';
import { uuidv7 } from '../../lib/ids.ts';
import { recordAudit } from '../audit-logs/audit-logs.service.ts';
import { lengthOf, type Interval } from '../metrics-explorer/datetime-range.ts';
import { windowOf } from '../metrics-explorer/metrics.service.ts';
import * as repo from './monitoring.repo.ts';
import {
  METRIC_TYPE,
  toMonitoringMetricResource,
  type CreateMonitoringMetricBody,
  type ListMonitoringMetricsQuery,
  type MonitoringMetric,
  type UpdateMonitoringMetricBody,
} from './monitoring.schemas.ts';

/** Monitoring metrics: the authorization rate watched every minute (docs/insights.md, "Monitoring"). */

const MINUTE = 60_000;
const audited = (row: MonitoringMetricRow) => ({ type: METRIC_TYPE, id: row.id, name: row.display_name });
const json = (value: unknown) => JSON.stringify(value);

/** A sample covers 5 to 60 minutes (the published bound), so the evaluation stays a short range scan. */
function checkWindow(text: string): void {
  const pointer = '/spec/params/filters/datetime_range';
  const window = windowOf(text, new Date(), pointer, 'body');
  const minutes = lengthOf(window) / MINUTE;
  if (minutes < 5 || minutes > 60)
    throw fieldRefusal(
      'body',
      pointer,
      `${text} covers ${Math.round(minutes * 100) / 100} minutes; a monitoring window covers 5 to 60 minutes (e.g. PT60M/now)`,
      'value_error.interval',
    );
}

function checkThresholds(body: Pick<CreateMonitoringMetricBody, 'alerting_policy'>): void {
  const params = body.alerting_policy?.params;
  if (params && params.alert_gt === null && params.alert_lt === null)
    throw fieldRefusal(
      'body',
      '/alerting_policy/params',
      'A threshold policy needs alert_gt, alert_lt or both; use alerting_policy null to watch without alerts',
    );
}

/** The metric with its samples within `samples` (default: the last hour). */
async function withSamples(
  ctx: RequestContext,
  rows: MonitoringMetricRow[],
  samples: Interval,
): Promise<MonitoringMetric[]> {
  const all = await repo.samplesOf(
    ctx.deps.db,
    ctx.merchantAccountId,
    rows.map((r) => r.id),
    samples,
  );
  return rows.map((row) =>
    toMonitoringMetricResource(
      row,
      all.filter((s) => s.metric_id === row.id),
    ),
  );
}

const lastHour = (): Interval => ({ start: new Date(Date.now() - 60 * MINUTE), end: new Date() });

export async function createMonitoringMetric(
  ctx: RequestContext,
  body: CreateMonitoringMetricBody,
): Promise<MonitoringMetric> {
  checkWindow(body.spec.params.filters.datetime_range);
  checkThresholds(body);
  const principal = ctx.principal;
  return withRequestTransaction(ctx, async (tx) => {
    const row = await repo.insertMetric(tx, {
      merchant_account_id: ctx.merchantAccountId,
      id: uuidv7(),
      display_name: body.display_name,
      spec: json(body.spec),
      alerting_policy: json(body.alerting_policy),
      incident_policy: json(body.incident_policy),
      creator_id: principal?.keyPairId ?? null,
      creator_type: principal ? creatorType(principal) : null,
      creator_display_name: principal?.keyPairName ?? null,
      evaluated_until: null,
    });
    await recordAudit(tx, ctx, 'created', audited(row));
    return toMonitoringMetricResource(row, []);
  });
}

export async function listMonitoringMetrics(
  ctx: RequestContext,
  query: ListMonitoringMetricsQuery,
): Promise<ListEnvelope<MonitoringMetric>> {
  const samples = windowOf(query.samples_timestamp_interval, new Date(), '/samples_timestamp_interval');
  const page = await listPage(
    ctx,
    `monitoring-metrics:${query.search ?? ''}`,
    query,
    (position, limit) => repo.listMetrics(ctx.deps.db, ctx.merchantAccountId, query.search, position, limit),
    (row) => row,
    (row) => [row.created_at, row.id],
  );
  return { ...page, items: await withSamples(ctx, page.items, samples) };
}

async function metricOrNotFound(ctx: RequestContext, id: string): Promise<MonitoringMetricRow> {
  const row = await repo.findMetric(ctx.deps.db, ctx.merchantAccountId, id);
  if (!row) throw notFound('monitoring metric', id);
  return row;
}

export async function getMonitoringMetric(
  ctx: RequestContext,
  id: string,
  interval: string | undefined,
): Promise<MonitoringMetric> {
  const samples = interval === undefined ? lastHour() : windowOf(interval, new Date(), '/samples_timestamp_interval');
  const [metric] = await withSamples(ctx, [await metricOrNotFound(ctx, id)], samples);
  return metric!;
}

export async function updateMonitoringMetric(
  ctx: RequestContext,
  id: string,
  body: UpdateMonitoringMetricBody,
): Promise<MonitoringMetric> {
  if (body.alerting_policy !== undefined) checkThresholds({ alerting_policy: body.alerting_policy });
  const row = await withRequestTransaction(ctx, async (tx) => {
    if (!(await repo.findMetric(tx, ctx.merchantAccountId, id, { forUpdate: true })))
      throw notFound('monitoring metric', id);
    const now = new Date();
    const patch: MonitoringMetricPatch = { updated_at: now };
    if (body.display_name !== undefined) patch.display_name = body.display_name;
    if (body.alerting_policy !== undefined)
      Object.assign(patch, { alerting_policy: json(body.alerting_policy), alerting_policy_updated_at: now });
    if (body.incident_policy !== undefined)
      Object.assign(patch, { incident_policy: json(body.incident_policy), incident_policy_updated_at: now });
    const updated = await repo.updateMetric(tx, ctx.merchantAccountId, id, patch);
    await recordAudit(tx, ctx, 'updated', audited(updated));
    return updated;
  });
  const [metric] = await withSamples(ctx, [row], lastHour());
  return metric!;
}

/** 200 with the metric as it was; its incidents stay, with metric_id null. */
export async function deleteMonitoringMetric(ctx: RequestContext, id: string): Promise<MonitoringMetric> {
  return withRequestTransaction(ctx, async (tx) => {
    const row = await repo.findMetric(tx, ctx.merchantAccountId, id, { forUpdate: true });
    if (!row) throw notFound('monitoring metric', id);
    await repo.deleteMetric(tx, ctx.merchantAccountId, id);
    await recordAudit(tx, ctx, 'deleted', audited(row));
    return toMonitoringMetricResource(row, []);
  });
}
