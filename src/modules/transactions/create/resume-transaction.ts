import { withRequestTransaction, type RequestContext } from '../../../context.ts';
import { notFound } from '../../../errors/app-error.ts';
import { listTransactionGiftCardRedemptions, settleOpenRedemption } from '../../gift-cards/gift-cards.service.ts';
import { recordAudit } from '../../audit-logs/audit-logs.service.ts';
import { attemptPatch, UNANSWERED } from '../connector-call.ts';
import { nextCheckAt } from '../outcomes.ts';
import { attemptEvent } from '../transaction-events.ts';
import type { Transaction } from '../transaction.schema.ts';
import { transactionResource } from '../transaction-view.ts';
import * as repo from '../transactions.repo.ts';
import { emitTransaction } from '../webhook-events.ts';

/**
 * `resume` of `POST /transactions` (http/idempotency.ts): the transaction the first request
 * recorded before it died or failed, never a second one. Its authorization whose answer was never
 * recorded (the attempt still `in_flight`) is recorded now without one, as a timeout is: the
 * transaction stays `processing` and reconciliation asks the provider; the request's history
 * event, audit entry and `transaction.created` webhook are written with it, in the transaction
 * that stores this answer on the key. The provider is never called again.
 *
 * Gift cards are redeemed before the authorization: a redemption still `created` died around its
 * call to the gift card service, and gets the answer the service's status query gives for it
 * (`settleOpenRedemption`; never a second redeem call) before the answer is rendered. The
 * authorization after it was then never sent: reconciliation finds it `not_found`, fails the
 * transaction and gives back what the cards paid.
 */
export async function resumeTransaction(ctx: RequestContext, id: string): Promise<Transaction> {
  await settleRedemptions(ctx, id);
  return withRequestTransaction(ctx, async (tx) => {
    const open = (await repo.listOpenAttempts(tx, ctx.merchantAccountId, id)).find(
      (a) => a.operation === 'authorize' && a.status === 'in_flight',
    );
    // The attempt first, then the transaction: reconciliation locks in this order.
    const attempt = open && (await repo.findAttempt(tx, ctx.merchantAccountId, open.id, { forUpdate: true }));
    const row = await repo.findTransaction(tx, ctx.merchantAccountId, id, { forUpdate: true });
    if (!row) throw notFound('transaction', id);
    if (attempt?.status !== 'in_flight' || row.status !== 'processing') return transactionResource(tx, ctx, row);
    const now = new Date();
    await repo.updateAttempt(
      tx,
      ctx.merchantAccountId,
      attempt.id,
      attemptPatch(UNANSWERED, null, nextCheckAt(0, now), null),
    );
    await repo.insertEvents(tx, [attemptEvent(row, attempt.id, 'authorize', attempt.amount, UNANSWERED, null, now)]);
    await recordAudit(tx, ctx, 'created', { type: 'transaction', id: row.id, name: `${row.currency} ${row.amount}` });
    await emitTransaction(tx, ctx.deps, row, 'transaction.created');
    return transactionResource(tx, ctx, row);
  });
}

/** Every redemption of the transaction still `created`, settled from the gift card service's status query, in order. */
async function settleRedemptions(ctx: RequestContext, transactionId: string): Promise<void> {
  for (const redemption of await listTransactionGiftCardRedemptions(ctx.deps.db, ctx, transactionId)) {
    if (redemption.status === 'created') await settleOpenRedemption(ctx, redemption.id);
  }
}
