import { keysetPage, type KeysetPage } from '../../db/keyset.ts';
import { escapeLike } from '../../db/like.ts';
import type {
  MonitoringIncidentRow,
  MonitoringMetricPatch,
  MonitoringMetricRow,
  MonitoringSampleRow,
  NewMonitoringIncident,
  NewMonitoringMetric,
} from '../../db/schema-insights.ts';
import type { Executor } from '../../db/transaction.ts';
import type { CursorPosition } from '../../http/cursor.ts';
import type { Interval } from '../metrics-explorer/datetime-range.ts';

export async function insertMetric(db: Executor, row: NewMonitoringMetric): Promise<MonitoringMetricRow> {
  return db.insertInto('monitoring_metrics').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function findMetric(
  db: Executor,
  merchantAccountId: string,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<MonitoringMetricRow | undefined> {
  let query = db
    .selectFrom('monitoring_metrics')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('id', '=', id);
  if (options.forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

export async function updateMetric(
  db: Executor,
  merchantAccountId: string,
  id: string,
  patch: MonitoringMetricPatch,
): Promise<MonitoringMetricRow> {
  return db
    .updateTable('monitoring_metrics')
    .set(patch)
    .where('merchant_account_id', '=', merchantAccountId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Deletes the metric and its samples; its incidents keep their snapshot with metric_id null (0031). */
export async function deleteMetric(db: Executor, merchantAccountId: string, id: string): Promise<void> {
  await db
    .deleteFrom('monitoring_metrics')
    .where('merchant_account_id', '=', merchantAccountId)
    .where('id', '=', id)
    .execute();
}

export async function listMetrics(
  db: Executor,
  merchantAccountId: string,
  search: string | undefined,
  position: CursorPosition | null,
  limit: number,
): Promise<KeysetPage<MonitoringMetricRow>> {
  let query = db.selectFrom('monitoring_metrics').selectAll().where('merchant_account_id', '=', merchantAccountId);
  if (search !== undefined) query = query.where('display_name', 'ilike', `%${escapeLike(search)}%`);
  return keysetPage(db, query, { columns: ['created_at', 'id'], limit, position });
}

/** The samples of several metrics within an interval, oldest first, in one query. */
export async function samplesOf(
  db: Executor,
  merchantAccountId: string,
  metricIds: string[],
  within: Interval,
): Promise<MonitoringSampleRow[]> {
  if (metricIds.length === 0) return [];
  return db
    .selectFrom('monitoring_samples')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('metric_id', 'in', metricIds)
    .where('sampled_at', '>', within.start)
    .where('sampled_at', '<=', within.end)
    .orderBy('sampled_at')
    .execute();
}

/**
 * Claims a metric's sample of `minute`: only the first evaluator to move `evaluated_until` forward
 * gets the row (and its lock until commit); any other finds nothing to do.
 */
export async function claimMinute(
  db: Executor,
  merchantAccountId: string,
  id: string,
  minute: Date,
): Promise<MonitoringMetricRow | undefined> {
  return db
    .updateTable('monitoring_metrics')
    .set({ evaluated_until: minute })
    .where('merchant_account_id', '=', merchantAccountId)
    .where('id', '=', id)
    .where((eb) => eb.or([eb('evaluated_until', 'is', null), eb('evaluated_until', '<', minute)]))
    .returningAll()
    .executeTakeFirst();
}

/** Metrics whose sample of `minute` is not taken yet, across merchant accounts. */
export async function dueMetrics(
  db: Executor,
  minute: Date,
  limit: number,
): Promise<Array<Pick<MonitoringMetricRow, 'merchant_account_id' | 'id'>>> {
  return db
    .selectFrom('monitoring_metrics')
    .select(['merchant_account_id', 'id'])
    .where((eb) => eb.or([eb('evaluated_until', 'is', null), eb('evaluated_until', '<', minute)]))
    .orderBy('evaluated_until')
    .limit(limit)
    .execute();
}

export async function insertSample(db: Executor, row: MonitoringSampleRow): Promise<void> {
  await db.insertInto('monitoring_samples').values(row).execute();
}

/** The newest samples of a metric, newest first. */
export async function latestSamples(
  db: Executor,
  merchantAccountId: string,
  metricId: string,
  n: number,
): Promise<MonitoringSampleRow[]> {
  return db
    .selectFrom('monitoring_samples')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('metric_id', '=', metricId)
    .orderBy('sampled_at', 'desc')
    .limit(n)
    .execute();
}

export async function markIncidentRelated(
  db: Executor,
  merchantAccountId: string,
  metricId: string,
  since: Date,
): Promise<void> {
  await db
    .updateTable('monitoring_samples')
    .set({ incident_related: true })
    .where('merchant_account_id', '=', merchantAccountId)
    .where('metric_id', '=', metricId)
    .where('sampled_at', '>=', since)
    .execute();
}

export async function openIncident(
  db: Executor,
  merchantAccountId: string,
  metricId: string,
): Promise<MonitoringIncidentRow | undefined> {
  return db
    .selectFrom('monitoring_incidents')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('metric_id', '=', metricId)
    .where('closed_at', 'is', null)
    .executeTakeFirst();
}

export async function insertIncident(db: Executor, row: NewMonitoringIncident): Promise<MonitoringIncidentRow> {
  return db.insertInto('monitoring_incidents').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function updateIncident(
  db: Executor,
  merchantAccountId: string,
  id: string,
  patch: { notes?: string | null; closed_at?: Date },
  now: Date,
): Promise<MonitoringIncidentRow | undefined> {
  return db
    .updateTable('monitoring_incidents')
    .set({ ...patch, updated_at: now })
    .where('merchant_account_id', '=', merchantAccountId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

export async function findIncident(
  db: Executor,
  merchantAccountId: string,
  id: string,
): Promise<MonitoringIncidentRow | undefined> {
  return db
    .selectFrom('monitoring_incidents')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Incidents newest first, of one metric or all, opened within an interval when one is given. */
export async function listIncidents(
  db: Executor,
  merchantAccountId: string,
  f: { metricId?: string; within?: Interval },
  position: CursorPosition | null,
  limit: number,
): Promise<KeysetPage<MonitoringIncidentRow>> {
  let query = db.selectFrom('monitoring_incidents').selectAll().where('merchant_account_id', '=', merchantAccountId);
  if (f.metricId) query = query.where('metric_id', '=', f.metricId);
  if (f.within) query = query.where('created_at', '>=', f.within.start).where('created_at', '<', f.within.end);
  return keysetPage(db, query, { columns: ['created_at', 'id'], limit, position });
}

/** Retention: samples after 30 days, closed incidents after 365 days (the published alert log's). */
export async function purgeHistory(db: Executor, now: Date): Promise<number> {
  const samples = await db
    .deleteFrom('monitoring_samples')
    .where('sampled_at', '<', new Date(now.getTime() - 30 * 86_400_000))
    .executeTakeFirst();
  const incidents = await db
    .deleteFrom('monitoring_incidents')
    .where('closed_at', '<', new Date(now.getTime() - 365 * 86_400_000))
    .executeTakeFirst();
  return Number(samples.numDeletedRows) + Number(incidents.numDeletedRows);
}
