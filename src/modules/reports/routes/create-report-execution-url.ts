import { defineRoute } from '../../../http/define-route.ts';
import { createReportExecutionUrl as run } from '../report-executions.service.ts';
import {
  CreateReportExecutionUrlBody,
  ReportExecutionUrlParams,
  ReportExecutionUrlSchema,
} from '../reports.schemas.ts';

export const createReportExecutionUrl = defineRoute({
  operationId: 'createReportExecutionUrl',
  method: 'POST',
  url: '/reports/:report_id/executions/:report_execution_id/url',
  scope: 'reports.read',
  tags: ['reports'],
  summary: "Create a signed, time-limited download URL of an execution's file",
  description:
    'The URL needs no bearer token and streams the gzip-compressed CSV file; it is 403 once expired or if any part is changed. The execution must have succeeded; it becomes `dispatched`.',
  status: 200,
  params: ReportExecutionUrlParams,
  body: CreateReportExecutionUrlBody,
  bodyOptional: true,
  response: ReportExecutionUrlSchema,
  handler: ({ ctx, params, body }) => run(ctx, params.report_id, params.report_execution_id, body),
});
