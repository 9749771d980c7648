import type { Insertable } from 'kysely';
import type { ChargebackRow, ChargebacksTable } from '../../../db/schema-transactions.ts';
import { insertQuery } from '../../../db/insert-query.ts';
import type { Executor } from '../../../db/transaction.ts';

/** The unique index on (merchant_account_id, payment_service_id, report_line_id): one record per report line. */
export const REPORT_LINE_INDEX = 'chargebacks_report_line_idx';

/** A transaction's chargebacks or reversals, in the order their reports posted them. */
export async function listChargebacks<K extends ChargebackRow['kind']>(
  db: Executor,
  merchantAccountId: string,
  transactionId: string,
  kind: K,
): Promise<Array<ChargebackRow & { kind: K }>> {
  const rows = await db
    .selectFrom('chargebacks')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('transaction_id', '=', transactionId)
    .where('kind', '=', kind)
    .orderBy('posted_at')
    .orderBy('id')
    .execute();
  return rows as Array<ChargebackRow & { kind: K }>;
}

/** Report lines, for a caller that runs the insert with its other writes (src/db/write-batch.ts). */
export function insertChargebacksQuery(db: Executor, rows: Array<Insertable<ChargebacksTable>>) {
  return insertQuery(db, 'chargebacks', rows);
}

/** Whether the payment service's report line was written already (REPORT_LINE_INDEX). */
export async function hasReportLine(
  db: Executor,
  merchantAccountId: string,
  paymentServiceId: string,
  reportLineId: string,
): Promise<boolean> {
  const row = await db
    .selectFrom('chargebacks')
    .select('id')
    .where('merchant_account_id', '=', merchantAccountId)
    .where('payment_service_id', '=', paymentServiceId)
    .where('report_line_id', '=', reportLineId)
    .executeTakeFirst();
  return row !== undefined;
}
