import { sql } from 'kysely';
import { keysetPage, type KeysetPage } from '../../db/keyset.ts';
import { escapeLike } from '../../db/like.ts';
import type { ReportExecutionRow, ReportRow, ReportsTable } from '../../db/schema-reports.ts';
import type { Executor } from '../../db/transaction.ts';
import type { CursorPosition } from '../../http/cursor.ts';
import type { Insertable, Updateable } from 'kysely';

/** Reports: SQL only. Every function takes the merchant account, except the scheduler's scan across accounts. */

export async function insertReport(db: Executor, row: Insertable<ReportsTable>): Promise<ReportRow> {
  return db.insertInto('reports').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function findReport(
  db: Executor,
  merchantAccountId: string,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<ReportRow | undefined> {
  let query = db
    .selectFrom('reports')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('id', '=', id);
  if (options.forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

export async function updateReport(
  db: Executor,
  merchantAccountId: string,
  id: string,
  patch: Updateable<ReportsTable>,
): Promise<ReportRow> {
  return db
    .updateTable('reports')
    .set(patch)
    .where('merchant_account_id', '=', merchantAccountId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export interface ReportFilter {
  name?: string;
  schedules?: string[];
  scheduleEnabled?: boolean;
}

export async function listReports(
  db: Executor,
  merchantAccountId: string,
  f: ReportFilter,
  position: CursorPosition | null,
  limit: number,
): Promise<KeysetPage<ReportRow>> {
  let query = db.selectFrom('reports').selectAll().where('merchant_account_id', '=', merchantAccountId);
  if (f.name !== undefined)
    query = query.where(sql<boolean>`lower(name) LIKE ${`%${escapeLike(f.name.toLowerCase())}%`}`);
  if (f.schedules) query = query.where('schedule', 'in', f.schedules as ReportRow['schedule'][]);
  if (f.scheduleEnabled !== undefined) query = query.where('schedule_enabled', '=', f.scheduleEnabled);
  return keysetPage(db, query, { columns: ['created_at', 'id'], limit, position });
}

/**
 * Due scheduled reports across merchant accounts, locked for the caller's transaction. SKIP LOCKED:
 * a second scheduler running at the same moment takes the others, never the same report.
 */
export async function lockDueReports(db: Executor, now: Date, limit: number): Promise<ReportRow[]> {
  return db
    .selectFrom('reports')
    .selectAll()
    .where('schedule_enabled', '=', true)
    .where('next_execution_at', 'is not', null)
    .where('next_execution_at', '<=', now)
    .orderBy('next_execution_at')
    .limit(limit)
    .forUpdate()
    .skipLocked()
    .execute();
}

/** An execution with the report it belongs to (its name and creator). */
export type ExecutionWithReport = ReportExecutionRow &
  Pick<ReportRow, 'name' | 'creator_id' | 'creator_display_name' | 'creator_type'>;

function executionsWithReport(db: Executor, merchantAccountId: string) {
  return db
    .selectFrom('report_executions as e')
    .innerJoin('reports as r', (join) =>
      join.onRef('r.merchant_account_id', '=', 'e.merchant_account_id').onRef('r.id', '=', 'e.report_id'),
    )
    .selectAll('e')
    .select(['r.name', 'r.creator_id', 'r.creator_display_name', 'r.creator_type'])
    .where('e.merchant_account_id', '=', merchantAccountId);
}

/** Inserts the execution; undefined when this report already has one for that reference time. */
export async function insertExecution(
  db: Executor,
  row: Insertable<import('../../db/schema-reports.ts').ReportExecutionsTable>,
): Promise<ReportExecutionRow | undefined> {
  return db
    .insertInto('report_executions')
    .values(row)
    .onConflict((oc) => oc.columns(['merchant_account_id', 'report_id', 'reference_timestamp']).doNothing())
    .returningAll()
    .executeTakeFirst();
}

export async function findExecution(
  db: Executor,
  merchantAccountId: string,
  id: string,
): Promise<ExecutionWithReport | undefined> {
  return executionsWithReport(db, merchantAccountId).where('e.id', '=', id).executeTakeFirst();
}

export async function lockExecution(
  db: Executor,
  merchantAccountId: string,
  id: string,
): Promise<ReportExecutionRow | undefined> {
  return db
    .selectFrom('report_executions')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
}

export async function updateExecution(
  db: Executor,
  merchantAccountId: string,
  id: string,
  patch: Updateable<import('../../db/schema-reports.ts').ReportExecutionsTable>,
): Promise<void> {
  await db
    .updateTable('report_executions')
    .set({ ...patch, updated_at: new Date() })
    .where('merchant_account_id', '=', merchantAccountId)
    .where('id', '=', id)
    .execute();
}

export interface ExecutionFilter {
  reportId?: string;
  createdAt: { gte?: Date; lte?: Date };
  creatorIds?: string[];
  reportName?: string;
  statuses?: string[];
}

export async function listExecutions(
  db: Executor,
  merchantAccountId: string,
  f: ExecutionFilter,
  position: CursorPosition | null,
  limit: number,
): Promise<KeysetPage<ExecutionWithReport>> {
  let query = executionsWithReport(db, merchantAccountId);
  if (f.reportId !== undefined) query = query.where('e.report_id', '=', f.reportId);
  if (f.createdAt.gte) query = query.where('e.created_at', '>=', f.createdAt.gte);
  if (f.createdAt.lte) query = query.where('e.created_at', '<=', f.createdAt.lte);
  if (f.creatorIds) query = query.where('r.creator_id', 'in', f.creatorIds);
  if (f.reportName !== undefined)
    query = query.where(sql<boolean>`lower(r.name) LIKE ${`%${escapeLike(f.reportName.toLowerCase())}%`}`);
  if (f.statuses) query = query.where('e.status', 'in', f.statuses as ReportExecutionRow['status'][]);
  return keysetPage(db, query, { columns: ['e.created_at', 'e.id'], limit, position });
}

/** The newest execution of each of `reportIds` (one statement for a page of reports). */
export async function latestExecutions(
  db: Executor,
  merchantAccountId: string,
  reportIds: string[],
): Promise<Map<string, ReportExecutionRow>> {
  if (reportIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('report_executions')
    .selectAll()
    .distinctOn('report_id')
    .where('merchant_account_id', '=', merchantAccountId)
    .where('report_id', 'in', reportIds)
    .orderBy('report_id')
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
  return new Map(rows.map((row) => [row.report_id, row]));
}

/** Executions older than `before`, oldest first, across merchant accounts (the retention purge). */
export async function expiredExecutions(db: Executor, before: Date, limit: number): Promise<ReportExecutionRow[]> {
  return db
    .selectFrom('report_executions')
    .selectAll()
    .where('created_at', '<', before)
    .orderBy('created_at')
    .limit(limit)
    .execute();
}

export async function deleteExecution(db: Executor, merchantAccountId: string, id: string): Promise<void> {
  await db
    .deleteFrom('report_executions')
    .where('merchant_account_id', '=', merchantAccountId)
    .where('id', '=', id)
    .execute();
}
