import { defineRoute } from '../../../http/define-route.ts';
import { listReportExecutions as run } from '../report-executions.service.ts';
import { ListReportExecutionsQuery, ReportExecutionsSchema } from '../reports.schemas.ts';

export const listAllReportExecutions = defineRoute({
  operationId: 'listAllReportExecutions',
  method: 'GET',
  url: '/report-executions',
  scope: 'reports.read',
  tags: ['reports'],
  summary: 'List the executions of every report, newest first',
  description:
    'Filters: created_at range (with a time zone offset), creator_id and status (repeat the key to match any), report_name (part of it, case-insensitive).',
  status: 200,
  querystring: ListReportExecutionsQuery,
  response: ReportExecutionsSchema,
  handler: ({ ctx, query }) => run(ctx, query),
});
