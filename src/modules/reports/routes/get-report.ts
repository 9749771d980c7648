import { defineRoute } from '../../../http/define-route.ts';
import { ReportParams, ReportSchema } from '../reports.schemas.ts';
import { getReport as run } from '../reports.service.ts';

export const getReport = defineRoute({
  operationId: 'getReport',
  method: 'GET',
  url: '/reports/:report_id',
  scope: 'reports.read',
  tags: ['reports'],
  summary: 'Read a report with its latest execution',
  status: 200,
  params: ReportParams,
  response: ReportSchema,
  handler: ({ ctx, params }) => run(ctx, params.report_id),
});
