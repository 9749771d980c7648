import { defineRoute } from '../../../http/define-route.ts';
import { getReportExecution as run } from '../report-executions.service.ts';
import { ReportExecutionParams, ReportExecutionSchema } from '../reports.schemas.ts';

export const getReportExecution = defineRoute({
  operationId: 'getReportExecution',
  method: 'GET',
  url: '/report-executions/:report_execution_id',
  scope: 'reports.read',
  tags: ['reports'],
  summary: 'Read a report execution',
  status: 200,
  params: ReportExecutionParams,
  response: ReportExecutionSchema,
  handler: ({ ctx, params }) => run(ctx, params.report_execution_id),
});
