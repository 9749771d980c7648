import { defineRoute } from '../../../http/define-route.ts';
import { ReportParams, ReportSchema, UpdateReportBody } from '../reports.schemas.ts';
import { updateReport as run } from '../reports.service.ts';

export const updateReport = defineRoute({
  operationId: 'updateReport',
  method: 'PUT',
  url: '/reports/:report_id',
  scope: 'reports.write',
  tags: ['reports'],
  summary: 'Rename a report, change its description, pause or resume its schedule',
  description:
    'The spec and the schedule cannot change. `schedule_enabled: false` pauses a schedule; switching it back on plans the next midnight from now (missed runs are not made).',
  status: 200,
  params: ReportParams,
  body: UpdateReportBody,
  response: ReportSchema,
  handler: ({ ctx, params, body }) => run(ctx, params.report_id, body),
});
