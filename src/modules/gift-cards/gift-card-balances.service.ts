import { hasScope, isEmbed, type RequestContext } from '../../context.ts';
import type { GiftCardRow } from '../../db/schema.ts';
import { AppError, forbidden } from '../../errors/app-error.ts';
import { resolveBuyerReference } from '../buyers/buyers.service.ts';
import {
  checkSameBuyer,
  embedBuyerPins,
  pinnedSelection,
  referenceOf,
  requiredReference,
} from '../buyers/embed-buyer.ts';
import * as activations from './gift-card-activations.repo.ts';
import * as redemptions from './gift-card-redemptions.repo.ts';
import { usableGiftCardService } from './gift-card-service.ts';
import { cardDigits, giftCardFingerprint, releaseGiftCard } from './gift-card-vault.ts';
import * as repo from './gift-cards.repo.ts';
import {
  NO_USAGE,
  usageFields,
  type GiftCardBalanceBody,
  type GiftCardSummary,
  type GiftCardUsage,
  type ListBuyerGiftCardsQuery,
} from './gift-cards.schemas.ts';

/** The buyer list is plain (no cursor) and checks each balance: at most this many cards. */
export const BUYER_GIFT_CARDS_LIMIT = 20;

/** A card to look up: number and pin in clear for this request only, and its stored id if any. */
interface Lookup {
  id: string | null;
  number: string;
  pin: string;
}

/**
 * How often each card was redeemed, in two reads at most: a stored card counts as `GET
 * /gift-cards/{id}` counts it (by id), a card given in full by its number's fingerprint.
 */
async function usageOfCards(ctx: RequestContext, cards: Lookup[], fingerprints: string[]): Promise<GiftCardUsage[]> {
  const { db } = ctx.deps;
  const stored = cards.flatMap((card) => (card.id ? [card.id] : []));
  const given = fingerprints.filter((_, index) => !cards[index]!.id);
  const [byId, byFingerprint] = await Promise.all([
    repo.usageOf(db, ctx.merchantAccountId, stored),
    repo.usageByFingerprint(db, ctx.merchantAccountId, given),
  ]);
  return cards.map(
    (card, index) => (card.id ? byId.get(card.id) : byFingerprint.get(fingerprints[index]!)) ?? NO_USAGE,
  );
}

/** Asks the service for each card's balance, net of what this account already took from it. */
async function summaries(ctx: RequestContext, cards: Lookup[]): Promise<GiftCardSummary[]> {
  const { db } = ctx.deps;
  // One after another: the first fingerprint of an account creates its fingerprint key.
  const fingerprints: string[] = [];
  for (const card of cards) fingerprints.push(await giftCardFingerprint(db, ctx, card.number));
  const taken = await redemptions.redeemedByFingerprint(db, ctx.merchantAccountId, fingerprints);
  const activated = await activations.activatedByFingerprint(db, ctx.merchantAccountId, fingerprints);
  const usage = await usageOfCards(ctx, cards, fingerprints);
  const { connector } = usableGiftCardService(ctx);
  return Promise.all(
    cards.map(async (card, index): Promise<GiftCardSummary> => {
      const outcome = await connector.balance({
        number: card.number,
        pin: card.pin,
        alreadyRedeemed: taken.get(fingerprints[index]!) ?? 0,
        activated: activated.get(fingerprints[index]!) ?? null,
      });
      const base = {
        type: 'gift-card' as const,
        id: card.id,
        merchant_account_id: ctx.merchantAccountId,
        ...cardDigits(card.number),
        ...usageFields(usage[index]!),
      };
      if (outcome.ok)
        return {
          ...base,
          currency: outcome.currency,
          expiration_date: outcome.expirationDate,
          balance: outcome.balance,
          balance_error_code: null,
          balance_raw_error_code: null,
          balance_raw_error_message: null,
        };
      return {
        ...base,
        currency: null,
        expiration_date: null,
        balance: null,
        balance_error_code: outcome.errorCode,
        balance_raw_error_code: outcome.rawErrorCode,
        balance_raw_error_message: outcome.rawErrorMessage,
      };
    }),
  );
}

/**
 * The buyer whose stored cards an embed token may look up: the one it pins. A token without a
 * buyer pin may look up cards given in full only.
 */
async function embedBuyerId(ctx: RequestContext): Promise<string | null | undefined> {
  if (!isEmbed(ctx.principal) || hasScope(ctx.principal!, 'gift-cards.read')) return undefined;
  const reference = referenceOf(embedBuyerPins(ctx));
  if (!reference) throw forbidden('This embed token pins no buyer: it may not look up stored gift cards');
  return (await resolveBuyerReference(ctx.deps.db, ctx, reference, { missingIsNull: true }))?.id ?? null;
}

async function storedRows(ctx: RequestContext, body: GiftCardBalanceBody): Promise<Map<string, GiftCardRow>> {
  const ids = body.items.flatMap((item) => ('id' in item ? [item.id] : []));
  if (ids.length === 0) return new Map();
  const allowedBuyer = await embedBuyerId(ctx);
  const rows = await repo.findGiftCards(ctx.deps.db, ctx.merchantAccountId, ids);
  // Another buyer's card is as unknown to an embed token as a missing one.
  return new Map(
    rows
      .filter((row) => allowedBuyer === undefined || (allowedBuyer !== null && row.buyer_id === allowedBuyer))
      .map((row) => [row.id, row]),
  );
}

/** `POST /gift-cards/balances`: one summary per item, in order; stored cards carry their id. */
export async function listGiftCardBalances(
  ctx: RequestContext,
  body: GiftCardBalanceBody,
): Promise<{ items: GiftCardSummary[] }> {
  const rows = await storedRows(ctx, body);
  const cards: Lookup[] = [];
  for (const [index, item] of body.items.entries()) {
    if (!('id' in item)) {
      cards.push({ id: null, number: item.number, pin: item.pin });
      continue;
    }
    const row = rows.get(item.id);
    if (!row)
      throw new AppError('not_found', `The gift card ${item.id} could not be found`, {
        details: [
          { location: 'body', pointer: `/items/${index}/id`, message: 'No such stored gift card', type: 'not_found' },
        ],
      });
    cards.push({ id: row.id, ...(await releaseGiftCard(ctx.deps.db, ctx, row)) });
  }
  return { items: await summaries(ctx, cards) };
}

/** `GET /buyers/gift-cards`: a buyer's stored cards, newest first, each with its balance. */
export async function listBuyerGiftCards(
  ctx: RequestContext,
  query: ListBuyerGiftCardsQuery,
): Promise<{ items: GiftCardSummary[] }> {
  const selection = pinnedSelection(ctx, query, 'gift-cards.read', 'gift cards');
  const buyer = (await resolveBuyerReference(ctx.deps.db, ctx, requiredReference(selection)))!;
  checkSameBuyer(selection, buyer);
  const rows = await repo.listBuyerGiftCards(ctx.deps.db, ctx.merchantAccountId, buyer.id, BUYER_GIFT_CARDS_LIMIT);
  const cards = await Promise.all(
    rows.map(async (row) => ({ id: row.id, ...(await releaseGiftCard(ctx.deps.db, ctx, row)) })),
  );
  return { items: await summaries(ctx, cards) };
}
