import type { Deps } from '../../context.ts';
import type { ReportExecutionRow, ReportRow } from '../../db/schema-reports.ts';
import type { Tx } from '../../db/transaction.ts';
import { uuidv7 } from '../../lib/ids.ts';
import * as repo from './reports.repo.ts';

/**
 * Adds the execution of `report` for `reference` (`pending`) and its `generate-report` job, in the
 * caller's transaction. Returns undefined when that execution exists already: the unique
 * (report, reference time) index makes a due run exist once across all processes.
 */
export async function addExecution(
  tx: Tx,
  deps: Deps,
  report: ReportRow,
  reference: Date,
): Promise<ReportExecutionRow | undefined> {
  const now = new Date();
  const row = await repo.insertExecution(tx, {
    merchant_account_id: report.merchant_account_id,
    id: uuidv7(),
    report_id: report.id,
    status: 'pending',
    reference_timestamp: reference,
    reference_timezone: report.schedule_timezone,
    file_key: null,
    row_count: null,
    size: null,
    error_code: null,
    error_message: null,
    created_at: now,
    updated_at: now,
  });
  if (!row) return undefined;
  await deps.queue.enqueue(
    tx,
    'generate-report',
    { merchant_account_id: row.merchant_account_id, report_execution_id: row.id },
    { jobKey: `generate-report:${row.id}` },
  );
  return row;
}
