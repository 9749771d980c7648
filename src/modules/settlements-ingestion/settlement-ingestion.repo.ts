import { sql } from 'kysely';
import type { SettlementIngestionRow } from '../../db/schema-settlement-ingestions.ts';
import type { Executor } from '../../db/transaction.ts';

/** Lines counted by one page. */
export interface LineCounts {
  written: number;
  duplicate: number;
  unmatched: number;
}

export async function findState(
  db: Executor,
  merchantAccountId: string,
  paymentServiceId: string,
): Promise<SettlementIngestionRow | undefined> {
  return db
    .selectFrom('settlement_ingestions')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('payment_service_id', '=', paymentServiceId)
    .executeTakeFirst();
}

/** The state of a first run (kept as it is when another run made it first). */
export async function insertStateOnce(
  db: Executor,
  merchantAccountId: string,
  paymentServiceId: string,
  since: Date,
): Promise<void> {
  await db
    .insertInto('settlement_ingestions')
    .values({ merchant_account_id: merchantAccountId, payment_service_id: paymentServiceId, since })
    .onConflict((oc) => oc.columns(['merchant_account_id', 'payment_service_id']).doNothing())
    .execute();
}

/** A listing from `since` again (`svc settlements ingest --since`): the cursor starts over. */
export async function restartState(
  db: Executor,
  merchantAccountId: string,
  paymentServiceId: string,
  since: Date,
  now: Date,
): Promise<void> {
  await db
    .updateTable('settlement_ingestions')
    .set({ since, cursor: null, updated_at: now })
    .where('merchant_account_id', '=', merchantAccountId)
    .where('payment_service_id', '=', paymentServiceId)
    .execute();
}

/**
 * Adds a page's counts and, with `move`, moves the cursor from `move.from` to `move.to`, only if it
 * still is at `move.from`: false when another run moved it meanwhile (that run goes on; this one stops).
 */
export async function recordPage(
  db: Executor,
  merchantAccountId: string,
  paymentServiceId: string,
  counts: LineCounts,
  move: { from: string | null; to: string | null } | null,
  now: Date,
): Promise<boolean> {
  let query = db
    .updateTable('settlement_ingestions')
    .set((eb) => ({
      lines_written: eb('lines_written', '+', counts.written),
      lines_duplicate: eb('lines_duplicate', '+', counts.duplicate),
      lines_unmatched: eb('lines_unmatched', '+', counts.unmatched),
      ...(move ? { cursor: move.to } : {}),
      updated_at: now,
    }))
    .where('merchant_account_id', '=', merchantAccountId)
    .where('payment_service_id', '=', paymentServiceId);
  if (move) query = query.where(sql<boolean>`cursor is not distinct from ${move.from}`);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** How the run ended: `error` null for a success. */
export async function recordRun(
  db: Executor,
  merchantAccountId: string,
  paymentServiceId: string,
  error: string | null,
  now: Date,
): Promise<void> {
  await db
    .updateTable('settlement_ingestions')
    .set({ last_run_at: now, last_error: error, ...(error === null ? { last_success_at: now } : {}), updated_at: now })
    .where('merchant_account_id', '=', merchantAccountId)
    .where('payment_service_id', '=', paymentServiceId)
    .execute();
}

/** Whether the merchant account's payment service has its settlement reports ingested (`settlement_reporting_enabled`, not deleted). */
export async function reportingEnabled(
  db: Executor,
  merchantAccountId: string,
  paymentServiceId: string,
): Promise<boolean> {
  const row = await db
    .selectFrom('payment_services')
    .select('settlement_reporting_enabled')
    .where('merchant_account_id', '=', merchantAccountId)
    .where('id', '=', paymentServiceId)
    .where('is_deleted', '=', false)
    .executeTakeFirst();
  return row?.settlement_reporting_enabled === true;
}
