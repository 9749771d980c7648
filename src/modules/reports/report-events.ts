import type { Deps } from '../../context.ts';
import type { Tx } from '../../db/transaction.ts';
import { emitEvent } from '../events/events.service.ts';
import { toReportExecutionResource } from './report.resource.ts';
import type { ExecutionWithReport } from './reports.repo.ts';

/** `report-execution.succeeded` / `report-execution.failed` (docs/webhooks.md), in the transaction that records the outcome (outbox). */
export async function emitExecution(tx: Tx, deps: Deps, row: ExecutionWithReport): Promise<void> {
  if (row.status !== 'succeeded' && row.status !== 'failed') return;
  await emitEvent(tx, deps, {
    merchantAccountId: row.merchant_account_id,
    kind: `report-execution.${row.status}`,
    resourceType: 'report-execution',
    resourceId: row.id,
    payload: toReportExecutionResource(row),
  });
}
