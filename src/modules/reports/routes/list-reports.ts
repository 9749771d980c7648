import { defineRoute } from '../../../http/define-route.ts';
import { ListReportsQuery, ReportsSchema } from '../reports.schemas.ts';
import { listReports as run } from '../reports.service.ts';

export const listReports = defineRoute({
  operationId: 'listReports',
  method: 'GET',
  url: '/reports',
  scope: 'reports.read',
  tags: ['reports'],
  summary: 'List reports, newest first',
  description:
    'Filters: name (part of it, case-insensitive), schedule (repeat the key to match any), schedule_enabled.',
  status: 200,
  querystring: ListReportsQuery,
  response: ReportsSchema,
  handler: ({ ctx, query }) => run(ctx, query),
});
