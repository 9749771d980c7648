import type { RequestContext } from '../../context.ts';
import type { Executor } from '../../db/transaction.ts';
import { fieldRefusal, notFound } from '../../errors/app-error.ts';
import { cardDigits, giftCardFingerprint, releaseGiftCard } from './gift-card-vault.ts';
import { usableGiftCardService } from './gift-card-service.ts';
import * as repo from './gift-cards.repo.ts';
import { MAX_GIFT_CARDS } from './gift-cards.schemas.ts';

/** A gift card of `POST /transactions`: given in full, or stored (by id). */
export type TransactionGiftCardItem = { number: string; pin: string; amount: number } | { id: string; amount: number };

/** A gift card ready to redeem: the number and pin are plaintext, for this request only. */
export interface GiftCardInstrument {
  /** The stored card, or null for a card given in full. */
  giftCardId: string | null;
  /** The buyer of a stored card (null if none): the engine checks it is the transaction's buyer. */
  buyerId: string | null;
  number: string;
  pin: string;
  fingerprint: string;
  bin: string;
  sub_bin: string;
  last4: string;
  amount: number;
  /** Where the item sits in the request body, for error details (`/gift_cards/0`). */
  pointer: string;
}

function checkItems(items: readonly TransactionGiftCardItem[], basePointer: string): void {
  if (items.length > MAX_GIFT_CARDS)
    throw fieldRefusal(
      'body',
      basePointer,
      `At most ${MAX_GIFT_CARDS} gift cards can fund one transaction`,
      'max_gift_cards_reached',
    );
  items.forEach((item, index) => {
    if (!Number.isSafeInteger(item.amount) || item.amount <= 0)
      throw fieldRefusal(
        'body',
        `${basePointer}/${index}/amount`,
        'The amount must be a positive integer in minor units',
        'invalid_amount',
      );
    if ('number' in item && !/^\d{16,19}$/.test(item.number))
      throw fieldRefusal(
        'body',
        `${basePointer}/${index}/number`,
        'A gift card number has 16 to 19 digits',
        'invalid_gift_card',
      );
    if ('number' in item && item.pin === '')
      throw fieldRefusal('body', `${basePointer}/${index}/pin`, 'The pin is required', 'invalid_gift_card');
  });
}

/**
 * For the transaction engine: checks the gift cards of a transaction request and makes them
 * redeemable. Stored cards are loaded (404 for an unknown id) and released by the vault; every
 * card is fingerprinted; the same card twice is refused. Run in the engine's transaction `db`.
 * Nothing here calls the gift card service.
 */
export async function resolveTransactionGiftCards(
  db: Executor,
  ctx: RequestContext,
  items: readonly TransactionGiftCardItem[],
  basePointer = '/gift_cards',
): Promise<GiftCardInstrument[]> {
  // Before anything is recorded: production has no gift card service to redeem them with.
  if (items.length > 0) usableGiftCardService(ctx);
  checkItems(items, basePointer);
  const storedIds = items.flatMap((item) => ('id' in item ? [item.id] : []));
  const rows = new Map((await repo.findGiftCards(db, ctx.merchantAccountId, storedIds)).map((row) => [row.id, row]));
  const instruments: GiftCardInstrument[] = [];
  for (const [index, item] of items.entries()) {
    const pointer = `${basePointer}/${index}`;
    let card: { number: string; pin: string };
    let buyerId: string | null = null;
    if ('id' in item) {
      const row = rows.get(item.id);
      if (!row) throw notFound('gift card', item.id);
      card = await releaseGiftCard(db, ctx, row);
      buyerId = row.buyer_id;
    } else {
      card = { number: item.number, pin: item.pin };
    }
    const fingerprint = await giftCardFingerprint(db, ctx, card.number);
    if (instruments.some((other) => other.fingerprint === fingerprint))
      throw fieldRefusal('body', pointer, 'The same gift card appears twice', 'invalid_gift_card');
    instruments.push({
      giftCardId: 'id' in item ? item.id : null,
      buyerId,
      ...card,
      fingerprint,
      ...cardDigits(card.number),
      amount: item.amount,
      pointer,
    });
  }
  return instruments;
}
