import type { FastifyInstance } from 'fastify';
import { createReport } from './routes/create-report.ts';
import { createReportExecutionUrl } from './routes/create-report-execution-url.ts';
import { downloadReportExecution } from './routes/download-report-execution.ts';
import { getReport } from './routes/get-report.ts';
import { getReportExecution } from './routes/get-report-execution.ts';
import { listAllReportExecutions } from './routes/list-all-report-executions.ts';
import { listReportExecutions } from './routes/list-report-executions.ts';
import { listReports } from './routes/list-reports.ts';
import { updateReport } from './routes/update-report.ts';

/** Reports: CSV exports of transactions, retries, settlements and receivables, once or on a schedule (docs/reports.md). */
export async function reports(app: FastifyInstance): Promise<void> {
  for (const route of [
    createReport,
    listReports,
    getReport,
    updateReport,
    listReportExecutions,
    createReportExecutionUrl,
    listAllReportExecutions,
    getReportExecution,
    downloadReportExecution,
  ])
    app.route(route);
}
