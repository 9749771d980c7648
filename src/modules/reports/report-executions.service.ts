import { withRequestTransaction, type RequestContext } from '../../context.ts';
import { fieldRefusal, notFound } from '../../errors/app-error.ts';
import { listPage, type ListEnvelope } from '../../http/pagination.ts';
import { recordAudit } from '../audit-logs/audit-logs.service.ts';
import { toReportExecutionResource } from './report.resource.ts';
import { downloadSecret, signDownload } from './report-download.service.ts';
import type {
  CreateReportExecutionUrlBody,
  ListExecutionsOfReportQuery,
  ListReportExecutionsQuery,
  ReportExecution,
  ReportExecutionUrl,
} from './reports.schemas.ts';
import * as repo from './reports.repo.ts';

export async function getReportExecution(ctx: RequestContext, id: string): Promise<ReportExecution> {
  const row = await repo.findExecution(ctx.deps.db, ctx.merchantAccountId, id);
  if (!row) throw notFound('report execution', id);
  return toReportExecutionResource(row);
}

const given = <T>(value: T | null | undefined): value is T => value !== null && value !== undefined;

function page(
  ctx: RequestContext,
  name: string,
  query: { cursor?: string | null; limit: number },
  filter: repo.ExecutionFilter,
): Promise<ListEnvelope<ReportExecution>> {
  return listPage(
    ctx,
    `${name}:${JSON.stringify([filter.reportId ?? null, filter.createdAt.gte?.toISOString() ?? null, filter.createdAt.lte?.toISOString() ?? null, filter.creatorIds ?? null, filter.reportName ?? null, filter.statuses ?? null])}`,
    query,
    (position, limit) => repo.listExecutions(ctx.deps.db, ctx.merchantAccountId, filter, position, limit),
    toReportExecutionResource,
    (row) => [row.created_at, row.id],
  );
}

/** `GET /report-executions`: every report's executions, newest first. */
export async function listReportExecutions(
  ctx: RequestContext,
  query: ListReportExecutionsQuery,
): Promise<ListEnvelope<ReportExecution>> {
  return page(ctx, 'report-executions', query, {
    createdAt: {
      ...(given(query.created_at_gte) ? { gte: new Date(query.created_at_gte) } : {}),
      ...(given(query.created_at_lte) ? { lte: new Date(query.created_at_lte) } : {}),
    },
    ...(given(query.creator_id) ? { creatorIds: [...new Set(query.creator_id)].sort() } : {}),
    ...(given(query.report_name) ? { reportName: query.report_name } : {}),
    ...(given(query.status) ? { statuses: [...new Set(query.status)].sort() } : {}),
  });
}

/** `GET /reports/{id}/executions`: one report's executions, newest first. */
export async function listExecutionsOfReport(
  ctx: RequestContext,
  reportId: string,
  query: ListExecutionsOfReportQuery,
): Promise<ListEnvelope<ReportExecution>> {
  if (!(await repo.findReport(ctx.deps.db, ctx.merchantAccountId, reportId))) throw notFound('report', reportId);
  return page(ctx, 'report-executions-of-report', query, { reportId, createdAt: {} });
}

/**
 * `POST /reports/{id}/executions/{execution_id}/url`: a signed download URL valid `expires_in`
 * minutes. The execution becomes `dispatched` (its file was handed out) the first time.
 */
export async function createReportExecutionUrl(
  ctx: RequestContext,
  reportId: string,
  executionId: string,
  body: CreateReportExecutionUrlBody,
): Promise<ReportExecutionUrl> {
  const secret = await downloadSecret(ctx.deps);
  return withRequestTransaction(ctx, async (tx) => {
    const row = await repo.findExecution(tx, ctx.merchantAccountId, executionId);
    if (!row || row.report_id !== reportId) throw notFound('report execution', executionId);
    if ((row.status !== 'succeeded' && row.status !== 'dispatched') || !row.file_key) {
      throw fieldRefusal(
        'path',
        '/report_execution_id',
        `The report execution is ${row.status}: only a succeeded execution has a file to download`,
      );
    }
    if (row.status === 'succeeded')
      await repo.updateExecution(tx, ctx.merchantAccountId, executionId, { status: 'dispatched' });
    const expiresAt = new Date(Date.now() + body.expires_in * 60_000);
    await recordAudit(tx, ctx, 'created', {
      type: 'report-execution-url',
      id: row.id,
      name: `${row.name} (download until ${expiresAt.toISOString()})`,
    });
    return {
      url: signDownload(ctx.deps, secret, ctx.merchantAccountId, executionId, expiresAt),
      expires_at: expiresAt.toISOString(),
    };
  });
}
