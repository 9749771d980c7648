import type { RequestContext } from '../../../context.ts';
import type { GiftCardRefundOutcome } from '../../../connectors/gift-cards/gift-card-connector.ts';
import type { RefundRow, TransactionRow } from '../../../db/schema-transactions.ts';
import { withTransaction } from '../../../db/transaction.ts';
import { AppError } from '../../../errors/app-error.ts';
import { uuidv7 } from '../../../lib/ids.ts';
import { recordAudit } from '../../audit-logs/audit-logs.service.ts';
import {
  giftCardRefundStatus,
  releaseGiftCardRefund,
  reserveGiftCardRefund,
  sendGiftCardRefund,
} from '../../gift-cards/gift-cards.service.ts';
import { toRefundResource, type Refund } from '../refund.schema.ts';
import { event } from '../transaction-events.ts';
import * as repo from '../transactions.repo.ts';
import { emitRefund, refundKind } from '../webhook-events.ts';

/**
 * What the request binds to its idempotency key with the refund it records (http/idempotency.ts):
 * the refund's id, or for `refunds/all` the ids of every refund it recorded so far.
 */
export type BindAs = (refundId: string) => string;
export const bindRefund: BindAs = (refundId) => refundId;

/**
 * Refunds a gift card redemption. One transaction records the refund (`processing`), reserves its
 * amount on the redemption and binds it to the idempotency key; the gift card service is called
 * outside any transaction with the refund's id as its idempotency key; a second transaction records
 * the answer (a refusal gives the reservation back). A crash between the two leaves the refund
 * `processing` with its reservation: the retry (`settleGiftCardRefund`) or reconcile-gift-cards
 * asks the service's status query and records its answer; the refund call is never sent twice.
 * The transaction's `refunded_amount` counts the payment method only.
 */
export async function refundRedemption(
  ctx: RequestContext,
  row: TransactionRow,
  redemptionId: string,
  amount: number,
  body: { reason?: string | null; external_identifier?: string | null },
  bindAs: BindAs = bindRefund,
): Promise<Refund> {
  if (amount <= 0) throw new AppError('bad_request', 'Nothing is left to refund on this gift card redemption');
  const { refund, redemption } = await withTransaction(ctx.deps.db, async (tx) => {
    const redemption = await reserveGiftCardRefund(tx, ctx, redemptionId, amount);
    const inserted = await repo.insertRefund(tx, {
      merchant_account_id: ctx.merchantAccountId,
      id: uuidv7(),
      transaction_id: row.id,
      status: 'processing',
      currency: row.currency,
      amount,
      reason: body.reason ?? null,
      target_type: 'gift-card-redemption',
      target_id: redemptionId,
      external_identifier: body.external_identifier ?? null,
    });
    if (ctx.idempotency) await ctx.idempotency.bindResource(tx, bindAs(inserted.id));
    return { refund: inserted, redemption };
  });
  const outcome = await sendGiftCardRefund(ctx, redemption, amount, refund.id);
  return toRefundResource(await recordGiftCardRefund(ctx, refund, outcome), row);
}

/**
 * The service's answer on a gift card refund still `processing`, with its history event, audit entry
 * and webhooks; a refusal returns the reservation to the redemption. A refund settled meanwhile
 * (by the request's own answer, or reconciliation) is returned as it is.
 */
async function recordGiftCardRefund(
  ctx: RequestContext,
  refund: RefundRow,
  outcome: GiftCardRefundOutcome,
): Promise<RefundRow> {
  return withTransaction(ctx.deps.db, async (tx) => {
    // The transaction's lock orders every writer of its refunds.
    const row = (await repo.findTransaction(tx, ctx.merchantAccountId, refund.transaction_id, { forUpdate: true }))!;
    const current = (await repo.findRefund(tx, ctx.merchantAccountId, refund.id))!;
    if (current.status !== 'processing') return current;
    if (!outcome.ok) await releaseGiftCardRefund(tx, ctx, refund.target_id!, refund.amount);
    const patch = outcome.ok
      ? { status: 'succeeded' as const, payment_service_refund_id: outcome.refundId }
      : {
          status: 'declined' as const,
          error_code: outcome.errorCode,
          raw_response_code: outcome.rawErrorCode,
          raw_response_description: outcome.rawErrorMessage,
        };
    const updated = await repo.updateRefund(tx, ctx.merchantAccountId, refund.id, patch);
    await repo.insertEvents(tx, [
      event(
        row,
        outcome.ok ? 'gift-card-refund-succeeded' : 'gift-card-refund-failed',
        { refund_id: refund.id, redemption_id: refund.target_id, amount: refund.amount },
        new Date(),
      ),
    ]);
    await recordAudit(tx, ctx, 'created', {
      type: 'refund',
      id: refund.id,
      name: `${refund.currency} ${refund.amount}`,
    });
    await emitRefund(tx, ctx.deps, updated, row, 'refund.created');
    await emitRefund(tx, ctx.deps, updated, row, refundKind(updated.status));
    return updated;
  });
}

/**
 * A gift card refund left `processing` by a request that died around its call (its retry, or
 * reconciliation): the service's status query, by the refund's id, says what became of the call,
 * and that answer is recorded; a call the service never received is declined with
 * `service_network_error` and its reservation released. Still pending at the service: left as is.
 * Any other refund is returned unchanged.
 */
export async function settleGiftCardRefund(ctx: RequestContext, refundId: string): Promise<RefundRow | null> {
  const refund = await repo.findRefund(ctx.deps.db, ctx.merchantAccountId, refundId);
  if (!refund || refund.target_type !== 'gift-card-redemption' || refund.status !== 'processing') return refund ?? null;
  const outcome = await giftCardRefundStatus(ctx, refund.id);
  return outcome ? recordGiftCardRefund(ctx, refund, outcome) : refund;
}
