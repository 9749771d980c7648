import type { RequestContext } from '../../context.ts';
import type {
  GiftCardFailure,
  GiftCardRedeemOutcome,
  GiftCardRefundOutcome,
} from '../../connectors/gift-cards/gift-card-connector.ts';
import type { GiftCardRedemptionRow } from '../../db/schema.ts';
import { withTransaction, type Executor, type Tx } from '../../db/transaction.ts';
import { AppError, notFound } from '../../errors/app-error.ts';
import { uuidv7 } from '../../lib/ids.ts';
import { activatedByFingerprint } from './gift-card-activations.repo.ts';
import * as repo from './gift-card-redemptions.repo.ts';
import { usableGiftCardService } from './gift-card-service.ts';
import { toGiftCardRedemptionResource, type GiftCardRedemption } from './gift-cards.schemas.ts';
import type { GiftCardInstrument } from './transaction-gift-cards.ts';

/*
 * The transaction engine's side of gift cards, in the order it uses them (STYLE D4: no database
 * transaction is held across a call to the gift card service):
 * 1. `recordGiftCardRedemptions` in the engine's transaction: one `created` row per card (intent);
 * 2. after commit, `redeemGiftCard` per row: calls the service, records the outcome;
 * 3. later, a refund (`reserveGiftCardRefund` with the refund's record, `sendGiftCardRefund`) or
 *    a reversal (gift-card-reversals.service.ts).
 * A request that dies around a call leaves its record open; `settleOpenRedemption` and
 * `giftCardRefundStatus` finish it from the service's status query (docs/security.md, crash safety).
 * The simulator is stateless: each call passes what we already took from the card (see
 * `redeemedByFingerprint`), which counts `created` rows too, so concurrent redemptions of one card
 * cannot spend its balance twice (they may refuse one another; never overspend).
 */

/** Records one `created` redemption per instrument, in the caller's transaction; same order as `instruments`. */
export async function recordGiftCardRedemptions(
  tx: Tx,
  ctx: RequestContext,
  transactionId: string,
  instruments: readonly GiftCardInstrument[],
): Promise<GiftCardRedemption[]> {
  const rows: GiftCardRedemptionRow[] = [];
  for (const card of instruments) {
    const [row] = await repo.insertRedemptions(tx, [
      {
        merchant_account_id: ctx.merchantAccountId,
        id: uuidv7(),
        transaction_id: transactionId,
        gift_card_id: card.giftCardId,
        fingerprint: card.fingerprint,
        bin: card.bin,
        sub_bin: card.sub_bin,
        last4: card.last4,
        amount: card.amount,
      },
    ]);
    rows.push(row!);
  }
  return rows.map(toGiftCardRedemptionResource);
}

export async function lockRedemption(tx: Tx, ctx: RequestContext, id: string): Promise<GiftCardRedemptionRow> {
  const row = await repo.findRedemption(tx, ctx.merchantAccountId, id, { forUpdate: true });
  if (!row) throw notFound('gift card redemption', id);
  return row;
}

const failureColumns = (outcome: GiftCardFailure) => ({
  error_code: outcome.errorCode,
  raw_error_code: outcome.rawErrorCode,
  raw_error_message: outcome.rawErrorMessage,
});

/**
 * Redeems a recorded (`created`) redemption with the card the engine resolved, outside any
 * transaction, and records `succeeded` or `failed`. A redemption already settled is returned as is.
 */
export async function redeemGiftCard(
  ctx: RequestContext,
  redemptionId: string,
  card: GiftCardInstrument,
  currency: string,
): Promise<GiftCardRedemption> {
  const { db } = ctx.deps;
  const current = await repo.findRedemption(db, ctx.merchantAccountId, redemptionId);
  if (!current) throw notFound('gift card redemption', redemptionId);
  if (current.status !== 'created') return toGiftCardRedemptionResource(current);
  const taken = await repo.redeemedByFingerprint(db, ctx.merchantAccountId, [current.fingerprint], current.id);
  const activated = await activatedByFingerprint(db, ctx.merchantAccountId, [current.fingerprint]);
  const outcome = await usableGiftCardService(ctx).connector.redeem({
    number: card.number,
    pin: card.pin,
    amount: current.amount,
    currency,
    idempotencyKey: current.id,
    alreadyRedeemed: taken.get(current.fingerprint) ?? 0,
    activated: activated.get(current.fingerprint) ?? null,
  });
  return toGiftCardRedemptionResource(await recordRedemptionOutcome(ctx, redemptionId, outcome));
}

/** The service's answer on a redemption still `created` (a redemption settled meanwhile is kept as it is). */
async function recordRedemptionOutcome(
  ctx: RequestContext,
  redemptionId: string,
  outcome: GiftCardRedeemOutcome,
): Promise<GiftCardRedemptionRow> {
  return withTransaction(ctx.deps.db, async (tx) => {
    const locked = await lockRedemption(tx, ctx, redemptionId);
    if (locked.status !== 'created') return locked;
    const patch = outcome.ok
      ? { status: 'succeeded' as const, gift_card_service_redemption_id: outcome.redemptionId }
      : { status: 'failed' as const, ...failureColumns(outcome) };
    return repo.updateRedemption(tx, ctx.merchantAccountId, redemptionId, patch);
  });
}

/** The answer a redemption gets when the service never received its call: nothing was taken from the card. */
export const NOT_RECEIVED: GiftCardFailure = {
  ok: false,
  errorCode: 'service_network_error',
  rawErrorCode: null,
  rawErrorMessage: 'The gift card service never received the call (the process stopped before sending it)',
};

/**
 * A redemption left `created` by a request that died around its call to the service (the retry
 * of that request, or reconciliation): the service's status query says what became of the call,
 * found by the redemption's id (its idempotency key), and that answer is recorded as the call's
 * own would have been; a call the service never received fails (`service_network_error`, nothing
 * was taken). `pending` leaves it `created` for a later look. The redeem call is never sent again.
 */
export async function settleOpenRedemption(
  ctx: RequestContext,
  redemptionId: string,
): Promise<GiftCardRedemptionRow | null> {
  const current = await repo.findRedemption(ctx.deps.db, ctx.merchantAccountId, redemptionId);
  if (!current) return null;
  if (current.status !== 'created') return current;
  const answer = await usableGiftCardService(ctx).connector.status({ operation: 'redeem', idempotencyKey: current.id });
  if (answer.status === 'pending') return current;
  return recordRedemptionOutcome(ctx, redemptionId, answer.status === 'done' ? answer.outcome : NOT_RECEIVED);
}

/** Marks a recorded redemption that will not be attempted (an earlier card failed) as `skipped`. */
export async function skipGiftCardRedemption(
  tx: Tx,
  ctx: RequestContext,
  redemptionId: string,
): Promise<GiftCardRedemption> {
  const row = await lockRedemption(tx, ctx, redemptionId);
  if (row.status !== 'created') return toGiftCardRedemptionResource(row);
  return toGiftCardRedemptionResource(
    await repo.updateRedemption(tx, ctx.merchantAccountId, redemptionId, { status: 'skipped' }),
  );
}

/**
 * Reserves `amount` of a succeeded redemption for a refund, in the caller's transaction (the one
 * that records the refund: a crash never leaves one without the other). The CHECK keeps the
 * reservations within the redeemed amount, so two concurrent refunds cannot exceed it.
 */
export async function reserveGiftCardRefund(
  tx: Tx,
  ctx: RequestContext,
  redemptionId: string,
  amount: number,
): Promise<GiftCardRedemptionRow> {
  const row = await lockRedemption(tx, ctx, redemptionId);
  if (row.status !== 'succeeded' || !row.gift_card_service_redemption_id)
    throw new AppError('bad_request', 'Only a succeeded gift card redemption can be refunded');
  if (!Number.isSafeInteger(amount) || amount <= 0 || amount > row.amount - row.refunded_amount) {
    throw new AppError('bad_request', `The refund amount must be between 1 and ${row.amount - row.refunded_amount}`);
  }
  return repo.updateRedemption(tx, ctx.merchantAccountId, redemptionId, {
    refunded_amount: row.refunded_amount + amount,
  });
}

/** Gives a refund's reservation back (the service refused it or never received it), in the caller's transaction. */
export async function releaseGiftCardRefund(
  tx: Tx,
  ctx: RequestContext,
  redemptionId: string,
  amount: number,
): Promise<void> {
  const row = await lockRedemption(tx, ctx, redemptionId);
  await repo.updateRedemption(tx, ctx.merchantAccountId, redemptionId, {
    refunded_amount: row.refunded_amount - amount,
  });
}

/** Sends a reserved refund to the service, outside any transaction; `idempotencyKey` is our refund's id. */
export async function sendGiftCardRefund(
  ctx: RequestContext,
  redemption: GiftCardRedemptionRow,
  amount: number,
  idempotencyKey: string,
): Promise<GiftCardRefundOutcome> {
  return usableGiftCardService(ctx).connector.refund({
    redemptionId: redemption.gift_card_service_redemption_id!,
    amount,
    idempotencyKey,
  });
}

/** What became of a refund whose answer was never recorded (`pending`: ask again later); `NOT_RECEIVED` when the service never had it. */
export async function giftCardRefundStatus(
  ctx: RequestContext,
  idempotencyKey: string,
): Promise<GiftCardRefundOutcome | null> {
  const answer = await usableGiftCardService(ctx).connector.status({ operation: 'refund', idempotencyKey });
  return answer.status === 'pending' ? null : answer.status === 'done' ? answer.outcome : NOT_RECEIVED;
}

/** The redemptions of a transaction, oldest first, as `Transaction.gift_card_redemptions` shows them. */
export async function listTransactionGiftCardRedemptions(
  db: Executor,
  ctx: RequestContext,
  transactionId: string,
): Promise<GiftCardRedemption[]> {
  return (await repo.listTransactionRedemptions(db, ctx.merchantAccountId, transactionId)).map(
    toGiftCardRedemptionResource,
  );
}

/** The redemptions of several transactions, by transaction id, in one query (no N+1 on list pages). */
export async function redemptionsByTransaction(
  db: Executor,
  ctx: RequestContext,
  transactionIds: readonly string[],
): Promise<Map<string, GiftCardRedemption[]>> {
  const byTransaction = new Map<string, GiftCardRedemption[]>();
  for (const row of await repo.listRedemptionsOfTransactions(db, ctx.merchantAccountId, transactionIds)) {
    const list = byTransaction.get(row.transaction_id) ?? [];
    list.push(toGiftCardRedemptionResource(row));
    byTransaction.set(row.transaction_id, list);
  }
  return byTransaction;
}

/** A transaction's redemptions by merchant account id (event snapshots, which have no request context). */
export async function redemptionsOfTransaction(
  db: Executor,
  merchantAccountId: string,
  transactionId: string,
): Promise<GiftCardRedemption[]> {
  return (await repo.listTransactionRedemptions(db, merchantAccountId, transactionId)).map(
    toGiftCardRedemptionResource,
  );
}
