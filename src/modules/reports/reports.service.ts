import { creatorType, withRequestTransaction, type RequestContext } from '../../context.ts';
import { notFound } from '../../errors/app-error.ts';
import { listPage, type ListEnvelope } from '../../http/pagination.ts';
import { recordAudit } from '../audit-logs/audit-logs.service.ts';
import { canReadPersonalData } from '../buyers/buyers.service.ts';
import { uuidv7 } from '../../lib/ids.ts';
import { addExecution } from './report-executions.create.ts';
import { nextExecutionAt } from './report-schedule.ts';
import { auditedReport, toReportResource } from './report.resource.ts';
import { checkReportBody } from './report-validation.ts';
import type { CreateReportBody, ListReportsQuery, Report, UpdateReportBody } from './reports.schemas.ts';
import * as repo from './reports.repo.ts';

/**
 * `POST /reports`. A `once` report enabled at creation gets its execution in the same transaction
 * (its reference time: now); a scheduled one gets its first midnight in `next_execution_at`.
 */
export async function createReport(ctx: RequestContext, body: CreateReportBody): Promise<Report> {
  const timeZone = body.schedule_timezone ?? 'Etc/UTC';
  checkReportBody(body.spec, timeZone);
  const principal = ctx.principal!;
  return withRequestTransaction(ctx, async (tx) => {
    const now = new Date();
    let report = await repo.insertReport(tx, {
      merchant_account_id: ctx.merchantAccountId,
      id: uuidv7(),
      name: body.name,
      description: body.description ?? null,
      schedule: body.schedule,
      schedule_enabled: body.schedule_enabled,
      schedule_timezone: timeZone,
      spec: JSON.stringify(body.spec),
      creator_id: principal.keyPairId,
      creator_display_name: principal.keyPairName,
      creator_type: creatorType(principal),
      reveal_pii: canReadPersonalData(ctx),
      next_execution_at: body.schedule === 'once' ? now : nextExecutionAt(body.schedule, timeZone, now),
      created_at: now,
      updated_at: now,
    });
    let latest = null;
    if (report.schedule === 'once' && report.schedule_enabled) {
      latest = (await addExecution(tx, ctx.deps, report, now)) ?? null;
      report = await repo.updateReport(tx, ctx.merchantAccountId, report.id, { next_execution_at: null });
    }
    await recordAudit(tx, ctx, 'created', auditedReport(report));
    return toReportResource(report, latest);
  });
}

export async function getReport(ctx: RequestContext, id: string): Promise<Report> {
  const row = await repo.findReport(ctx.deps.db, ctx.merchantAccountId, id);
  if (!row) throw notFound('report', id);
  const latest = await repo.latestExecutions(ctx.deps.db, ctx.merchantAccountId, [id]);
  return toReportResource(row, latest.get(id) ?? null);
}

/**
 * `PUT /reports/{id}`: name, description, schedule_enabled. Switching a scheduled report on plans
 * its next midnight from now (runs missed while it was off are not made); switching on a `once`
 * report that never ran makes its execution now.
 */
export async function updateReport(ctx: RequestContext, id: string, body: UpdateReportBody): Promise<Report> {
  return withRequestTransaction(ctx, async (tx) => {
    const current = await repo.findReport(tx, ctx.merchantAccountId, id, { forUpdate: true });
    if (!current) throw notFound('report', id);
    const now = new Date();
    const enabled = body.schedule_enabled ?? current.schedule_enabled;
    const switchedOn = enabled && !current.schedule_enabled;
    let next = current.next_execution_at;
    if (switchedOn && current.schedule !== 'once')
      next = nextExecutionAt(current.schedule, current.schedule_timezone, now);
    let row = await repo.updateReport(tx, ctx.merchantAccountId, id, {
      ...(body.name !== undefined && body.name !== null ? { name: body.name } : {}),
      ...(body.description !== undefined ? { description: body.description } : {}),
      schedule_enabled: enabled,
      next_execution_at: next,
      updated_at: now,
    });
    if (switchedOn && row.schedule === 'once' && row.next_execution_at) {
      await addExecution(tx, ctx.deps, row, now);
      row = await repo.updateReport(tx, ctx.merchantAccountId, id, { next_execution_at: null });
    }
    await recordAudit(tx, ctx, 'updated', auditedReport(row));
    const latest = await repo.latestExecutions(tx, ctx.merchantAccountId, [id]);
    return toReportResource(row, latest.get(id) ?? null);
  });
}

const given = <T>(value: T | null | undefined): value is T => value !== null && value !== undefined;

/** `GET /reports`: newest first; the list name carries every filter so a cursor replays only under them. */
export async function listReports(ctx: RequestContext, query: ListReportsQuery): Promise<ListEnvelope<Report>> {
  const filter: repo.ReportFilter = {
    ...(given(query.name) ? { name: query.name } : {}),
    ...(given(query.schedule) ? { schedules: [...new Set(query.schedule)].sort() } : {}),
    ...(given(query.schedule_enabled) ? { scheduleEnabled: query.schedule_enabled } : {}),
  };
  const page = await listPage(
    ctx,
    `reports:${JSON.stringify([filter.name ?? null, filter.schedules ?? null, filter.scheduleEnabled ?? null])}`,
    query,
    (position, limit) => repo.listReports(ctx.deps.db, ctx.merchantAccountId, filter, position, limit),
    (row) => row,
    (row) => [row.created_at, row.id],
  );
  const latest = await repo.latestExecutions(
    ctx.deps.db,
    ctx.merchantAccountId,
    page.items.map((r) => r.id),
  );
  return { ...page, items: page.items.map((row) => toReportResource(row, latest.get(row.id) ?? null)) };
}
