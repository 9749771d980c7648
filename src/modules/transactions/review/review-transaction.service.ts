import type { RequestContext } from '../../../context.ts';
import type { TransactionRow } from '../../../db/schema-transactions.ts';
import { withTransaction, type Tx } from '../../../db/transaction.ts';
import { AppError, notFound } from '../../../errors/app-error.ts';
import { recordAudit } from '../../audit-logs/audit-logs.service.ts';
import { completeCapture, reserveCapture } from '../capture/capture-transaction.service.ts';
import { voidRefusal } from '../transaction-status.ts';
import type { Transaction } from '../transaction.schema.ts';
import { transactionResource } from '../transaction-view.ts';
import * as repo from '../transactions.repo.ts';
import { completeVoid, reserveVoid } from '../void/void-transaction.service.ts';
import { heldCapture } from './review-hold.ts';

/**
 * Manual anti-fraud review (decisions 0139, 0144): a transaction its anti-fraud service sent to
 * review (`pending_review: true`) cannot be captured. Approving it ends the review and, for an
 * intent `capture` transaction held at its authorization, captures it; declining it ends the review
 * and voids the authorization. Each follow-up is reserved under the same row lock that ends the
 * review, so an approval, a decline and a capture racing each other leave one winner.
 * `anti_fraud_decision` keeps the service's `review` (the spec: "not updated after a review is
 * resolved").
 */

const NOT_PENDING = 'The transaction is not pending a manual anti-fraud review';
const STILL_OPEN =
  'The authorization of this transaction has not completed yet: decide the review once it has (or cancel the transaction)';

/** Locks the transaction, checks it is pending review (and `check`), ends the review and audits it. */
async function closeReview(
  tx: Tx,
  ctx: RequestContext,
  id: string,
  check: (row: TransactionRow) => void,
): Promise<TransactionRow> {
  const row = await repo.findTransaction(tx, ctx.merchantAccountId, id, { forUpdate: true });
  if (!row) throw notFound('transaction', id);
  if (!row.pending_review) throw new AppError('bad_request', NOT_PENDING);
  // Its answer is still to come and would be read with the held intent: the review waits for it.
  if (row.status === 'processing' || row.status === 'buyer_approval_pending')
    throw new AppError('bad_request', STILL_OPEN);
  check(row);
  const updated = await repo.updateTransaction(tx, ctx.merchantAccountId, id, { pending_review: false });
  await recordAudit(tx, ctx, 'updated', { type: 'transaction', id, name: `${updated.currency} ${updated.amount}` });
  return updated;
}

/**
 * Ends the review and reserves its follow-up (`next`, null: none) in one database transaction.
 * Without a follow-up the transaction is the answer, stored for the idempotency key with it; with
 * one, `complete` calls the payment service after the commit and records (and stores) the answer.
 */
async function endReview<R>(
  ctx: RequestContext,
  id: string,
  check: (row: TransactionRow) => void,
  next: (tx: Tx, row: TransactionRow) => Promise<R> | null,
  complete: (reserved: R) => Promise<unknown>,
): Promise<Transaction> {
  let recorded: Awaited<ReturnType<NonNullable<RequestContext['idempotency']>['record']>> | null = null;
  const ended = await withTransaction(ctx.deps.db, async (tx) => {
    const row = await closeReview(tx, ctx, id, check);
    const reserving = next(tx, row);
    if (reserving) return { reserved: await reserving, resource: null };
    const resource = await transactionResource(tx, ctx, row);
    if (ctx.idempotency) recorded = await ctx.idempotency.record(tx, ctx.successStatus, resource);
    return { reserved: null, resource };
  });
  if (ctx.idempotency && recorded) ctx.idempotency.recorded = recorded;
  if (ended.resource) return ended.resource;
  return (await complete(ended.reserved as R)) as Transaction;
}

/**
 * `POST /transactions/{id}/review/approve`: ends the review; an intent `capture` transaction held
 * at its authorization is captured in full through the ordinary capture (its events, webhooks,
 * settlement), and the transaction after that capture is the answer.
 */
export function approveTransactionReview(ctx: RequestContext, id: string): Promise<Transaction> {
  // The follow-up's reservation is the review's, not a capture or void request of its own: no key binding.
  const inner = { ...ctx, idempotency: null };
  return endReview(
    ctx,
    id,
    () => {},
    (tx, row) =>
      heldCapture(row) && row.status === 'authorization_succeeded' ? reserveCapture(tx, inner, id, {}) : null,
    (reserved) => completeCapture(ctx, reserved, true),
  );
}

/**
 * `POST /transactions/{id}/review/decline`: ends the review and voids an authorization through the
 * ordinary void (a captured one is refused: refund it). A repeated decline is refused because the
 * review has ended.
 */
export function declineTransactionReview(ctx: RequestContext, id: string): Promise<Transaction> {
  const inner = { ...ctx, idempotency: null };
  return endReview(
    ctx,
    id,
    (current) => {
      const refusal = current.status === 'authorization_succeeded' ? voidRefusal(current) : null;
      if (refusal) throw new AppError('bad_request', refusal);
      if (current.status === 'capture_succeeded' || current.status === 'capture_pending')
        throw new AppError('bad_request', 'A captured transaction cannot be declined on review; refund it instead');
    },
    (tx, row) => (row.status === 'authorization_succeeded' ? reserveVoid(tx, inner, id) : null),
    (reserved) => completeVoid(ctx, reserved, true),
  );
}
