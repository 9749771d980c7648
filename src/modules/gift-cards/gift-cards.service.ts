import { withRequestTransaction, isEmbed, type RequestContext } from '../../context.ts';
import type { Executor } from '../../db/transaction.ts';
import { forbidden, notFound } from '../../errors/app-error.ts';
import { listPage } from '../../http/pagination.ts';
import { uuidv7 } from '../../lib/ids.ts';
import { recordAudit } from '../audit-logs/audit-logs.service.ts';
import { buyerResourcesByIds, resolveBuyerReference } from '../buyers/buyers.service.ts';
import { embedBuyerPins, singleBuyerReference } from '../buyers/embed-buyer.ts';
import { activatedByFingerprint } from './gift-card-activations.repo.ts';
import { giftCardServiceResource, usableGiftCardService } from './gift-card-service.ts';
import { cardDigits, giftCardFingerprint, sealGiftCard } from './gift-card-vault.ts';
import { giftCardAlreadyStored, giftCardRefusal } from './gift-cards.errors.ts';
import * as repo from './gift-cards.repo.ts';
import {
  toGiftCardResource,
  type CreateGiftCardBody,
  type GiftCard,
  type ListGiftCardsQuery,
} from './gift-cards.schemas.ts';

export {
  resolveTransactionGiftCards,
  type GiftCardInstrument,
  type TransactionGiftCardItem,
} from './transaction-gift-cards.ts';
export {
  giftCardRefundStatus,
  listTransactionGiftCardRedemptions,
  recordGiftCardRedemptions,
  redeemGiftCard,
  releaseGiftCardRefund,
  reserveGiftCardRefund,
  sendGiftCardRefund,
  settleOpenRedemption,
  skipGiftCardRedemption,
} from './gift-card-redemptions.service.ts';
export { reverseGiftCardRedemption, scheduleReversals, sendReversal } from './gift-card-reversals.service.ts';

/** Thrown inside the transaction when the unique fingerprint index refuses a concurrent copy. */
class DuplicateGiftCard extends Error {}

/**
 * `POST /gift-cards`: checks the card with the gift card service (outside any transaction, and
 * before the duplicate check, so only someone holding a valid number and pin learns that it is
 * already stored), then stores it encrypted and bound to its row.
 */
export async function createGiftCard(ctx: RequestContext, body: CreateGiftCardBody): Promise<GiftCard> {
  const reference = singleBuyerReference(body, 'body');
  // An embed token may link a card only to the buyer it pins (the pins fill and guard the body).
  if (reference && isEmbed(ctx.principal) && Object.keys(embedBuyerPins(ctx)).length === 0)
    throw forbidden('This embed token pins no buyer: it may not store a gift card for one');
  const service = usableGiftCardService(ctx);
  const fingerprint = await giftCardFingerprint(ctx.deps.db, ctx, body.number);
  const activated =
    (await activatedByFingerprint(ctx.deps.db, ctx.merchantAccountId, [fingerprint])).get(fingerprint) ?? null;
  const balance = await service.connector.balance({
    number: body.number,
    pin: body.pin,
    alreadyRedeemed: 0,
    activated,
  });
  if (!balance.ok) throw giftCardRefusal(balance);
  try {
    return await withRequestTransaction(ctx, async (tx) => {
      const buyer = reference ? await resolveBuyerReference(tx, ctx, reference) : null;
      const existing = await repo.findGiftCardByFingerprint(tx, ctx.merchantAccountId, fingerprint);
      if (existing) throw giftCardAlreadyStored(existing.id);
      const id = uuidv7();
      const sealed = await sealGiftCard(tx, ctx, id, body);
      const row = await repo.insertGiftCard(tx, {
        merchant_account_id: ctx.merchantAccountId,
        id,
        buyer_id: buyer?.id ?? null,
        ...cardDigits(body.number),
        fingerprint,
        number_ciphertext: sealed.number.ciphertext,
        number_key_id: sealed.number.keyId,
        pin_ciphertext: sealed.pin.ciphertext,
        pin_key_id: sealed.pin.keyId,
        expiration_date: balance.expirationDate,
      });
      if (!row) throw new DuplicateGiftCard();
      await recordAudit(tx, ctx, 'created', { type: 'gift-card', id, name: `gift card ${row.last4}` });
      return toGiftCardResource(row, service.resource, buyer);
    });
  } catch (error) {
    if (!(error instanceof DuplicateGiftCard)) throw error;
    const existing = await repo.findGiftCardByFingerprint(
      ctx.deps.db,
      ctx.merchantAccountId,
      await giftCardFingerprint(ctx.deps.db, ctx, body.number),
    );
    throw giftCardAlreadyStored(existing?.id);
  }
}

async function buyerResourceOf(db: Executor, ctx: RequestContext, buyerId: string | null): Promise<unknown> {
  if (!buyerId) return null;
  return (await buyerResourcesByIds(db, ctx, [buyerId])).get(buyerId) ?? null;
}

export async function getGiftCard(ctx: RequestContext, id: string): Promise<GiftCard> {
  const row = await repo.findGiftCard(ctx.deps.db, ctx.merchantAccountId, id);
  if (!row) throw notFound('gift card', id);
  const usage = (await repo.usageOf(ctx.deps.db, ctx.merchantAccountId, [id])).get(id);
  return toGiftCardResource(
    row,
    giftCardServiceResource(ctx.merchantAccountId),
    await buyerResourceOf(ctx.deps.db, ctx, row.buyer_id),
    usage,
  );
}

/** Deletes the card and its ciphertexts; its redemptions stay, detached (`gift_card_id` null). */
export async function deleteGiftCard(ctx: RequestContext, id: string): Promise<void> {
  await withRequestTransaction(ctx, async (tx) => {
    const row = await repo.findGiftCard(tx, ctx.merchantAccountId, id, { forUpdate: true });
    if (!row) throw notFound('gift card', id);
    await repo.deleteGiftCard(tx, ctx.merchantAccountId, id);
    await recordAudit(tx, ctx, 'deleted', { type: 'gift-card', id, name: `gift card ${row.last4}` });
  });
}

export async function listGiftCards(ctx: RequestContext, query: ListGiftCardsQuery) {
  const reference = singleBuyerReference(query, 'query');
  const buyer = reference ? await resolveBuyerReference(ctx.deps.db, ctx, reference, { missingIsNull: true }) : null;
  if (reference && !buyer) return { items: [], limit: query.limit, next_cursor: null, previous_cursor: null };
  const filter = { buyerId: buyer?.id };
  const page = await listPage(
    ctx,
    `gift-cards:${filter.buyerId ?? ''}`,
    query,
    (position, limit) => repo.listGiftCards(ctx.deps.db, ctx.merchantAccountId, filter, position, limit),
    (row) => row,
    (row) => [row.created_at, row.id],
  );
  // The page's buyers in one query, not one per item.
  const buyerIds = [
    ...new Set(page.items.map((row) => row.buyer_id).filter((buyerId): buyerId is string => buyerId !== null)),
  ];
  const buyers = await buyerResourcesByIds(ctx.deps.db, ctx, buyerIds);
  const usage = await repo.usageOf(
    ctx.deps.db,
    ctx.merchantAccountId,
    page.items.map((row) => row.id),
  );
  const service = giftCardServiceResource(ctx.merchantAccountId);
  return {
    ...page,
    items: page.items.map((row) =>
      toGiftCardResource(row, service, row.buyer_id ? (buyers.get(row.buyer_id) ?? null) : null, usage.get(row.id)),
    ),
  };
}
