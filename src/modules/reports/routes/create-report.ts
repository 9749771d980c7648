import { defineRoute } from '../../../http/define-route.ts';
import { CreateReportBody, ReportSchema } from '../reports.schemas.ts';
import { createReport as run } from '../reports.service.ts';

export const createReport = defineRoute({
  operationId: 'createReport',
  method: 'POST',
  url: '/reports',
  scope: 'reports.write',
  tags: ['reports'],
  summary: 'Create a report (a CSV export, once or on a schedule)',
  description:
    '`spec.model` chooses the content (transactions, transaction_retries, detailed_settlement, accounts_receivables) and the form of `spec.params`; an unknown column, filter or value is a 422 naming it. ' +
    "`once` runs at once; `daily`, `weekly` (Mondays) and `monthly` (the 1st) run at midnight in `schedule_timezone`. Files mask buyers' personal data unless the creating credential holds buyers.billing-details.read. See docs/reports.md.",
  status: 201,
  body: CreateReportBody,
  response: ReportSchema,
  handler: ({ ctx, body }) => run(ctx, body),
});
