import type { Insertable } from 'kysely';
import type { RequestContext } from '../../../context.ts';
import type { ChargebackRow, ChargebacksTable, TransactionRow } from '../../../db/schema-transactions.ts';
import { notFound } from '../../../errors/app-error.ts';
import { uuidv7 } from '../../../lib/ids.ts';
import { toChargebackResource } from '../transaction-reads.schema.ts';
import * as transactions from '../transactions.repo.ts';
import * as repo from './chargebacks.repo.ts';

/**
 * Chargebacks and chargeback reversals are lines of a payment service's settlement reports, not
 * disputes opened through the API: they are read here and written by whoever ingests a report (the
 * sandbox's settlement, for the dispute test cards). A dispute notification by webhook marks the
 * transaction disputed (inbound/provider-events.service.ts) but is no report line.
 */
async function list<K extends ChargebackRow['kind']>(ctx: RequestContext, transactionId: string, kind: K) {
  if (!(await transactions.findTransaction(ctx.deps.db, ctx.merchantAccountId, transactionId)))
    throw notFound('transaction', transactionId);
  return {
    items: (await repo.listChargebacks(ctx.deps.db, ctx.merchantAccountId, transactionId, kind)).map((row) =>
      toChargebackResource(row),
    ),
  };
}

/** `GET /transactions/{id}/chargebacks`: every chargeback posted for the transaction, oldest first, no paging. */
export const listTransactionChargebacks = (ctx: RequestContext, transactionId: string) =>
  list(ctx, transactionId, 'chargeback');

/** `GET /transactions/{id}/chargeback-reversals`. */
export const listTransactionChargebackReversals = (ctx: RequestContext, transactionId: string) =>
  list(ctx, transactionId, 'chargeback-reversal');

/** The report a sandbox line comes from (capture-settlement.ts `sandboxReport`). */
export interface ReportOf {
  payment_service_report_id: string;
  payment_service_report_file_ids: string;
  posted_at: Date;
  ingested_at: Date;
}

/** The sandbox provider's fee for a chargeback, in minor units; a reversal costs nothing. */
export const SANDBOX_CHARGEBACK_FEE = 1500;

/**
 * The lines the sandbox's daily report holds for a dispute test card when it settles: a chargeback of
 * the captured amount, and with `reversed` its reversal. Their line ids name the transaction, so
 * the report line index refuses a second pair.
 */
export function sandboxDisputeLines(
  row: TransactionRow,
  report: ReportOf,
  reversed: boolean,
): Array<Insertable<ChargebacksTable> & { id: string }> {
  const line = (kind: ChargebackRow['kind'], commission: number) => ({
    merchant_account_id: row.merchant_account_id,
    id: uuidv7(),
    transaction_id: row.id,
    kind,
    payment_service_id: row.payment_service_id!,
    report_line_id: `sandbox-${kind}:${row.id}`,
    currency: row.currency,
    amount: row.captured_amount,
    exchange_rate: null,
    commission,
    interchange: null,
    markup: null,
    scheme_fee: null,
    ...report,
  });
  return [line('chargeback', SANDBOX_CHARGEBACK_FEE), ...(reversed ? [line('chargeback-reversal', 0)] : [])];
}
