import { withRequestTransaction, type RequestContext } from '../../../context.ts';
import type { TransactionRow } from '../../../db/schema-transactions.ts';
import { withTransaction, type Tx } from '../../../db/transaction.ts';
import { AppError, notFound } from '../../../errors/app-error.ts';
import { recordAudit } from '../../audit-logs/audit-logs.service.ts';
import { voidRefusal } from '../transaction-status.ts';
import type { Transaction } from '../transaction.schema.ts';
import { transactionResource } from '../transaction-view.ts';
import * as repo from '../transactions.repo.ts';
import { voidTransaction } from '../void/void-transaction.service.ts';

/**
 * Manual anti-fraud review (decision 0139): a transaction its anti-fraud service sent to review
 * (`pending_review: true`) is approved, which only ends the review, or declined, which ends it and
 * voids the authorization. `anti_fraud_decision` keeps the service's `review` (the spec: "not
 * updated after a review is resolved").
 */

const NOT_PENDING = 'The transaction is not pending a manual anti-fraud review';

/** Locks the transaction, checks it is pending review (and `check`), ends the review and audits it. */
async function closeReview(
  tx: Tx,
  ctx: RequestContext,
  id: string,
  check: (row: TransactionRow) => void = () => {},
): Promise<TransactionRow> {
  const row = await repo.findTransaction(tx, ctx.merchantAccountId, id, { forUpdate: true });
  if (!row) throw notFound('transaction', id);
  if (!row.pending_review) throw new AppError('bad_request', NOT_PENDING);
  check(row);
  const updated = await repo.updateTransaction(tx, ctx.merchantAccountId, id, { pending_review: false });
  await recordAudit(tx, ctx, 'updated', { type: 'transaction', id, name: `${updated.currency} ${updated.amount}` });
  return updated;
}

/** `POST /transactions/{id}/review/approve`. */
export async function approveTransactionReview(ctx: RequestContext, id: string): Promise<Transaction> {
  return withRequestTransaction(ctx, async (tx) => transactionResource(tx, ctx, await closeReview(tx, ctx, id)));
}

/**
 * `POST /transactions/{id}/review/decline`: ends the review, then voids an authorization (a
 * captured one is refused: refund it). The void is the ordinary one, recorded and reconciled; a
 * repeated decline is refused because the review has ended.
 */
export async function declineTransactionReview(ctx: RequestContext, id: string): Promise<Transaction> {
  const row = await withTransaction(ctx.deps.db, (tx) =>
    closeReview(tx, ctx, id, (current) => {
      const refusal = current.status === 'authorization_succeeded' ? voidRefusal(current) : null;
      if (refusal) throw new AppError('bad_request', refusal);
      if (current.status === 'capture_succeeded' || current.status === 'capture_pending')
        throw new AppError('bad_request', 'A captured transaction cannot be declined on review; refund it instead');
    }),
  );
  if (row.status !== 'authorization_succeeded') return transactionResource(ctx.deps.db, ctx, row);
  // The review's own request is not the void's: no idempotency binding is handed on.
  return (await voidTransaction({ ...ctx, idempotency: null }, id, true)) as Transaction;
}
