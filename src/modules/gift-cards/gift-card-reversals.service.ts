import type { Deps, RequestContext } from '../../context.ts';
import type { GiftCardReverseOutcome } from '../../connectors/gift-cards/gift-card-connector.ts';
import type { GiftCardRedemptionRow } from '../../db/schema.ts';
import { withTransaction, type Tx } from '../../db/transaction.ts';
import { lockRedemption } from './gift-card-redemptions.service.ts';
import * as repo from './gift-card-redemptions.repo.ts';
import { usableGiftCardService } from './gift-card-service.ts';

/*
 * A reversal gives back what is left of a succeeded redemption (the payment it funded failed or
 * was canceled). It is recorded before the gift card service is called (`reversal_status`
 * `pending`, the amount held in `refunded_amount`, migration 0050), so a crash around the call
 * leaves a trace: the `reverse-gift-card-redemption` job (enqueued with the record when the
 * reversal is part of a write, as a cancel is) or `reconcile-gift-cards` finishes it, asking the
 * service's status query first when the call may have been sent. The service's idempotency key is
 * `reverse:<redemption id>`: one reversal per redemption, however often it is sent.
 */

export const reversalKey = (redemptionId: string) => `reverse:${redemptionId}`;

/**
 * Records a reversal (`pending`) in the caller's transaction; false when there is nothing to give
 * back (not succeeded, nothing left, or a reversal already recorded).
 */
export async function reserveReversal(tx: Tx, merchantAccountId: string, redemptionId: string): Promise<boolean> {
  const row = await repo.findRedemption(tx, merchantAccountId, redemptionId, { forUpdate: true });
  if (!row || row.status !== 'succeeded' || !row.gift_card_service_redemption_id) return false;
  if (row.reversal_status === 'pending' || row.reversal_status === 'succeeded') return false;
  const left = row.amount - row.refunded_amount;
  if (left <= 0) return false;
  await repo.updateRedemption(tx, merchantAccountId, redemptionId, {
    refunded_amount: row.refunded_amount + left,
    reversal_status: 'pending',
    reversal_amount: left,
  });
  return true;
}

/**
 * Records the reversals of every succeeded redemption of a transaction and enqueues, by name and in
 * the same transaction, one `reverse-gift-card-redemption` job per redemption (its job key makes
 * it one): a cancel's give-back survives a crash right after its commit. Returns how many.
 */
export async function scheduleReversals(
  tx: Tx,
  deps: Pick<Deps, 'queue'>,
  merchantAccountId: string,
  transactionId: string,
): Promise<number> {
  let scheduled = 0;
  for (const row of await repo.listTransactionRedemptions(tx, merchantAccountId, transactionId)) {
    if (!(await reserveReversal(tx, merchantAccountId, row.id))) continue;
    await deps.queue.enqueue(
      tx,
      'reverse-gift-card-redemption',
      { merchant_account_id: merchantAccountId, redemption_id: row.id },
      { jobKey: `reverse-gift-card-redemption:${merchantAccountId}:${row.id}` },
    );
    scheduled++;
  }
  return scheduled;
}

/** The service's answer on a `pending` reversal: `succeeded` keeps the amount given back; a refusal returns it to the redemption. */
async function recordReversal(
  ctx: RequestContext,
  redemptionId: string,
  outcome: GiftCardReverseOutcome,
): Promise<GiftCardRedemptionRow> {
  const row = await withTransaction(ctx.deps.db, async (tx) => {
    const locked = await lockRedemption(tx, ctx, redemptionId);
    if (locked.reversal_status !== 'pending') return locked;
    if (outcome.ok)
      return repo.updateRedemption(tx, ctx.merchantAccountId, redemptionId, { reversal_status: 'succeeded' });
    return repo.updateRedemption(tx, ctx.merchantAccountId, redemptionId, {
      reversal_status: 'failed',
      refunded_amount: locked.refunded_amount - (locked.reversal_amount ?? 0),
    });
  });
  if (!outcome.ok)
    ctx.log.warn(
      { redemptionId, errorCode: outcome.errorCode },
      'gift card reversal refused; the redemption stays charged',
    );
  return row;
}

/**
 * Sends a `pending` reversal and records the answer (nothing when it is not pending). `mayHaveSent`:
 * an earlier run may have sent it before dying, so the status query is asked first and the call
 * is sent only when the service never received it (`pending` at the service: thrown, run later).
 */
export async function sendReversal(
  ctx: RequestContext,
  redemptionId: string,
  mayHaveSent: boolean,
): Promise<GiftCardRedemptionRow | null> {
  const row = await repo.findRedemption(ctx.deps.db, ctx.merchantAccountId, redemptionId);
  if (!row || row.reversal_status !== 'pending') return row ?? null;
  const { connector } = usableGiftCardService(ctx);
  if (mayHaveSent) {
    const answer = await connector.status({ operation: 'reverse', idempotencyKey: reversalKey(redemptionId) });
    if (answer.status === 'pending')
      throw new Error(`the reversal of gift card redemption ${redemptionId} is pending at the service`);
    if (answer.status === 'done') return recordReversal(ctx, redemptionId, answer.outcome);
  }
  return recordReversal(
    ctx,
    redemptionId,
    await connector.reverse({
      redemptionId: row.gift_card_service_redemption_id!,
      idempotencyKey: reversalKey(redemptionId),
    }),
  );
}

/**
 * Gives back what is left of a succeeded redemption now, in the calling process: recorded
 * (`pending`) first, so a crash before the answer is recorded leaves it to reconcile-gift-cards.
 */
export async function reverseGiftCardRedemption(ctx: RequestContext, redemptionId: string): Promise<void> {
  const reserved = await withTransaction(ctx.deps.db, (tx) => reserveReversal(tx, ctx.merchantAccountId, redemptionId));
  if (reserved) await sendReversal(ctx, redemptionId, false);
}
