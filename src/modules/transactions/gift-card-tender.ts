import type { Deps, RequestContext } from '../../context.ts';
import type { TransactionRow } from '../../db/schema-transactions.ts';
import type { Tx } from '../../db/transaction.ts';
import { invalidField } from '../../errors/app-error.ts';
import {
  recordGiftCardRedemptions,
  redeemGiftCard,
  resolveTransactionGiftCards,
  reverseGiftCardRedemption,
  skipGiftCardRedemption,
  type GiftCardInstrument,
  type TransactionGiftCardItem,
} from '../gift-cards/gift-cards.service.ts';
import { withTransaction } from '../../db/transaction.ts';
import { redemptionsOfTransaction } from '../gift-cards/gift-card-redemptions.service.ts';

/**
 * Multi-tender: gift cards fund part of a transaction and the payment method the rest. The gift
 * cards are redeemed first (each call outside any database transaction); if one fails, the rest
 * are skipped, the redeemed ones reversed, and the payment method is not charged. If the payment
 * method's authorization then fails, every redemption is reversed.
 */

export interface GiftCardTender {
  instruments: GiftCardInstrument[];
  redemptionIds: string[];
  total: number;
}

function items(raw: Array<{ number?: string; pin?: string; id?: string; amount: number }>): TransactionGiftCardItem[] {
  return raw.map((item, index) => {
    if (item.id && (item.number || item.pin))
      throw invalidField(
        'body',
        `/gift_cards/${index}`,
        'Send either id (a stored gift card) or number and pin, not both',
      );
    if (item.id) return { id: item.id, amount: item.amount };
    if (!item.number || !item.pin)
      throw invalidField(
        'body',
        `/gift_cards/${index}`,
        'A gift card needs number and pin, or the id of a stored gift card',
      );
    return { number: item.number, pin: item.pin, amount: item.amount };
  });
}

/** Phase 1 (in the creating transaction): checks the cards and records one `created` redemption each. */
/** `coversAll`: no payment method, so the gift cards must pay exactly `amount`. */
export async function recordTender(
  tx: Tx,
  ctx: RequestContext,
  transactionId: string,
  raw: Array<{ number?: string; pin?: string; id?: string; amount: number }>,
  amount: number,
  buyerId: string | null,
  coversAll: boolean,
): Promise<GiftCardTender | null> {
  if (raw.length === 0) return null;
  const instruments = await resolveTransactionGiftCards(tx, ctx, items(raw));
  for (const card of instruments) {
    if (card.buyerId && card.buyerId !== buyerId)
      throw invalidField('body', card.pointer, "The stored gift card belongs to another buyer than the transaction's");
  }
  const total = instruments.reduce((sum, card) => sum + card.amount, 0);
  if (coversAll && total !== amount)
    throw invalidField(
      'body',
      '/gift_cards',
      `Without a payment_method the gift cards must add up to amount (${amount}); they add up to ${total}`,
    );
  if (!coversAll && total >= amount)
    throw invalidField(
      'body',
      '/gift_cards',
      `The gift cards (${total}) must cover less than amount (${amount}): the payment method pays the rest`,
    );
  const redemptions = await recordGiftCardRedemptions(tx, ctx, transactionId, instruments);
  return { instruments, redemptionIds: redemptions.map((r) => r.id), total };
}

/** Phase 2: redeems every card in order; on the first failure skips the rest, reverses the redeemed, and returns its error code. */
export async function redeemTender(
  ctx: RequestContext,
  tender: GiftCardTender,
  currency: string,
): Promise<string | null> {
  for (const [index, card] of tender.instruments.entries()) {
    const redemption = await redeemGiftCard(ctx, tender.redemptionIds[index]!, card, currency);
    if (redemption.status === 'succeeded') continue;
    await withTransaction(ctx.deps.db, async (tx) => {
      for (const id of tender.redemptionIds.slice(index + 1)) await skipGiftCardRedemption(tx, ctx, id);
    });
    await reverseTender(ctx, { ...tender, redemptionIds: tender.redemptionIds.slice(0, index) });
    return redemption.error_code ?? 'gift_card_declined';
  }
  return null;
}

/** The transaction stopped before any redemption (anti-fraud, 3DS): every recorded redemption is skipped. */
export async function skipTender(ctx: RequestContext, tender: GiftCardTender): Promise<void> {
  await withTransaction(ctx.deps.db, async (tx) => {
    for (const id of tender.redemptionIds) await skipGiftCardRedemption(tx, ctx, id);
  });
}

/**
 * Gives back every redeemed amount (the payment it funded failed). Each reversal is recorded
 * before its call (gift-card-reversals.service.ts): a crash leaves it to reconcile-gift-cards; a
 * refusal is logged there and the redemption stays charged.
 */
export async function reverseTender(ctx: RequestContext, tender: Pick<GiftCardTender, 'redemptionIds'>): Promise<void> {
  for (const id of tender.redemptionIds) await reverseGiftCardRedemption(ctx, id);
}

/**
 * Gives back the gift cards of a multi-tender transaction that ended without its payment method
 * (declined, failed, canceled or timed out, whichever path ended it). Runs after the commit that
 * ended it; redemptions already reversed are not succeeded any more, so a second call does nothing.
 */
export async function reverseRedeemed(ctx: RequestContext, row: TransactionRow): Promise<void> {
  if (!row.multi_tender || !['authorization_declined', 'authorization_failed'].includes(row.status)) return;
  const redeemed = (await redemptionsOfTransaction(ctx.deps.db, row.merchant_account_id, row.id)).filter(
    (r) => r.status === 'succeeded',
  );
  if (redeemed.length > 0) await reverseTender(ctx, { redemptionIds: redeemed.map((r) => r.id) });
}

type Log = { warn(obj: object, msg?: string): void; info(obj: object, msg?: string): void };

/** A context for work no request asked for (a job or a sweep): no principal, no idempotency. */
export function systemContext(deps: Deps, merchantAccountId: string, operationId: string, log: Log): RequestContext {
  return {
    deps,
    requestId: operationId,
    log: log as RequestContext['log'],
    principal: null,
    merchantAccountId,
    operationId,
    successStatus: 200,
    idempotency: null,
  };
}
