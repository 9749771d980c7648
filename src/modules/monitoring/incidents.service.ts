import { withRequestTransaction, type RequestContext } from '../../context.ts';
import { notFound } from '../../errors/app-error.ts';
import { listPage, type ListEnvelope } from '../../http/pagination.ts';
import { recordAudit } from '../audit-logs/audit-logs.service.ts';
import { windowOf } from '../metrics-explorer/metrics.service.ts';
import * as repo from './monitoring.repo.ts';
import {
  INCIDENT_TYPE,
  toIncidentResource,
  type ListIncidentsQuery,
  type MonitoringIncident,
} from './monitoring.schemas.ts';

/** Incidents ("alerts"): opened and closed by the evaluator, annotated by people. */

export async function listIncidents(
  ctx: RequestContext,
  query: ListIncidentsQuery,
  metricId?: string,
): Promise<ListEnvelope<MonitoringIncident>> {
  if (metricId && !(await repo.findMetric(ctx.deps.db, ctx.merchantAccountId, metricId)))
    throw notFound('monitoring metric', metricId);
  const within =
    query.timestamp_interval === undefined
      ? undefined
      : windowOf(query.timestamp_interval, new Date(), '/timestamp_interval');
  return listPage(
    ctx,
    `monitoring-incidents:${metricId ?? ''}:${query.timestamp_interval ?? ''}`,
    query,
    (position, limit) => repo.listIncidents(ctx.deps.db, ctx.merchantAccountId, { metricId, within }, position, limit),
    toIncidentResource,
    (row) => [row.created_at, row.id],
  );
}

export async function getIncident(ctx: RequestContext, id: string): Promise<MonitoringIncident> {
  const row = await repo.findIncident(ctx.deps.db, ctx.merchantAccountId, id);
  if (!row) throw notFound('monitoring incident', id);
  return toIncidentResource(row);
}

export async function updateIncidentNotes(
  ctx: RequestContext,
  id: string,
  notes: string | null,
): Promise<MonitoringIncident> {
  return withRequestTransaction(ctx, async (tx) => {
    const row = await repo.updateIncident(tx, ctx.merchantAccountId, id, { notes }, new Date());
    if (!row) throw notFound('monitoring incident', id);
    await recordAudit(tx, ctx, 'updated', { type: INCIDENT_TYPE, id: row.id, name: row.display_name });
    return toIncidentResource(row);
  });
}
