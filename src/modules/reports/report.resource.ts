import type { ReportExecutionRow, ReportRow } from '../../db/schema-reports.ts';
import type { ExecutionWithReport } from './reports.repo.ts';
import type { Report, ReportExecution, ReportExecutionSummary } from './reports.schemas.ts';

/** The only way report rows become responses and webhook snapshots. */

function executionSummary(row: ReportExecutionRow): ReportExecutionSummary {
  return {
    type: 'report-execution',
    id: row.id,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    status: row.status,
    context: {
      reference_timestamp: new Date(row.reference_timestamp).toISOString(),
      reference_timezone: row.reference_timezone,
    },
    row_count: row.row_count === null ? null : Number(row.row_count),
    size: row.size === null ? null : Number(row.size),
    error:
      row.status === 'failed'
        ? {
            code: row.error_code ?? 'generation_error',
            message: row.error_message ?? 'The report could not be generated',
          }
        : null,
  };
}

export function toReportExecutionResource(row: ExecutionWithReport): ReportExecution {
  return {
    ...executionSummary(row),
    report: {
      type: 'report',
      id: row.report_id,
      merchant_account_id: row.merchant_account_id,
      name: row.name,
      creator_id: row.creator_id,
      creator_display_name: row.creator_display_name,
      creator_type: row.creator_type,
    },
  };
}

export function toReportResource(row: ReportRow, latest: ReportExecutionRow | null): Report {
  return {
    type: 'report',
    id: row.id,
    merchant_account_id: row.merchant_account_id,
    name: row.name,
    description: row.description,
    creator_id: row.creator_id,
    creator_display_name: row.creator_display_name,
    creator_type: row.creator_type,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    next_execution_at: row.schedule_enabled && row.next_execution_at ? row.next_execution_at.toISOString() : null,
    schedule: row.schedule,
    schedule_enabled: row.schedule_enabled,
    schedule_timezone: row.schedule_timezone,
    spec: { model: row.spec.model as Report['spec']['model'], params: row.spec.params },
    latest_execution: latest ? executionSummary(latest) : null,
  };
}

/** The execution as the audit log and logs name it. */
export const auditedExecution = (row: Pick<ReportExecutionRow, 'id'> & { name: string }) => ({
  type: 'report-execution',
  id: row.id,
  name: row.name,
});
export const auditedReport = (row: Pick<ReportRow, 'id' | 'name'>) => ({ type: 'report', id: row.id, name: row.name });
