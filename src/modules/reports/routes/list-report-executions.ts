import { defineRoute } from '../../../http/define-route.ts';
import { listExecutionsOfReport as run } from '../report-executions.service.ts';
import { ListExecutionsOfReportQuery, ReportExecutionsSchema, ReportParams } from '../reports.schemas.ts';

export const listReportExecutions = defineRoute({
  operationId: 'listReportExecutions',
  method: 'GET',
  url: '/reports/:report_id/executions',
  scope: 'reports.read',
  tags: ['reports'],
  summary: 'List the executions of one report, newest first',
  status: 200,
  params: ReportParams,
  querystring: ListExecutionsOfReportQuery,
  response: ReportExecutionsSchema,
  handler: ({ ctx, params, query }) => run(ctx, params.report_id, query),
});
