import { Type } from 'typebox';
import { defineRoute } from '../../../http/define-route.ts';
import { openDownload } from '../report-download.service.ts';
import { ReportExecutionParams } from '../reports.schemas.ts';

const DownloadQuery = Type.Object({
  merchant_account_id: Type.String({ minLength: 1, maxLength: 255 }),
  expires: Type.Integer({ minimum: 0, description: 'Unix time (seconds) after which the URL is refused' }),
  signature: Type.String({ minLength: 1, maxLength: 200 }),
});

/** The signed URL is the credential: no bearer token, no merchant header (docs/reports.md). */
export const downloadReportExecution = defineRoute({
  operationId: 'downloadReportExecution',
  method: 'GET',
  url: '/report-executions/:report_execution_id/report.csv.gz',
  scope: null,
  merchantScoped: false,
  tags: ['reports'],
  summary: "Download an execution's file through its signed URL (gzip-compressed CSV); no token needed",
  description:
    'Made by POST /reports/{report_id}/executions/{report_execution_id}/url. 403 when the URL has expired or was changed.',
  status: 200,
  params: ReportExecutionParams,
  querystring: DownloadQuery,
  response: Type.Unsafe<string>({ type: 'string', format: 'binary', description: 'The gzip-compressed CSV file' }),
  handler: async ({ ctx, params, query, reply }) => {
    const file = await openDownload(ctx.deps, params.report_execution_id, query);
    reply.headers({
      'content-type': 'application/gzip',
      'content-disposition': `attachment; filename="${file.fileName}"`,
      // A file of one merchant's data behind a bearer-less URL: no shared cache may keep it.
      'cache-control': 'private, no-store',
      'x-content-type-options': 'nosniff',
    });
    return file.body as unknown as string;
  },
});
