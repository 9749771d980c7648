import { withRequestTransaction, type Deps, type RequestContext } from '../../context.ts';
import type { CardTestingSpecJson } from '../../db/schema-insights.ts';
import { withTransaction, type Tx } from '../../db/transaction.ts';
import { emitEvent } from '../events/events.service.ts';
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

/**
 * An incident raised by a guard rather than a metric (the card-testing guard: docs/risk.md), in the
 * caller's transaction, announced like every incident by `monitoring.incident.created`.
 */
export async function raiseIncident(
  tx: Tx,
  deps: Deps,
  incident: { merchantAccountId: string; id: string; displayName: string; spec: CardTestingSpecJson },
): Promise<MonitoringIncident> {
  const row = await repo.insertIncident(tx, {
    merchant_account_id: incident.merchantAccountId,
    id: incident.id,
    metric_id: null,
    display_name: incident.displayName,
    spec: JSON.stringify(incident.spec),
    alerting_policy: JSON.stringify(null),
    incident_policy: JSON.stringify(null),
    notes: null,
    closed_at: null,
  });
  const resource = toIncidentResource(row);
  await emitEvent(tx, deps, {
    merchantAccountId: row.merchant_account_id,
    kind: 'monitoring.incident.created',
    resourceType: INCIDENT_TYPE,
    resourceId: row.id,
    payload: resource,
  });
  return resource;
}

/** Closes a guard's incident (once: an incident already closed is left as it is), announced by `monitoring.incident.closed`. */
export async function closeRaisedIncident(deps: Deps, merchantAccountId: string, id: string, at: Date): Promise<void> {
  await withTransaction(deps.db, async (tx) => {
    const row = await repo.findIncident(tx, merchantAccountId, id);
    if (!row || row.closed_at || row.metric_id) return;
    const closed = await repo.updateIncident(tx, merchantAccountId, id, { closed_at: at }, at);
    await emitEvent(tx, deps, {
      merchantAccountId,
      kind: 'monitoring.incident.closed',
      resourceType: INCIDENT_TYPE,
      resourceId: id,
      payload: toIncidentResource(closed!),
    });
  });
}
