import type { RequestContext } from '../../context.ts';
import type { GiftCardRow } from '../../db/schema.ts';
import type { Executor } from '../../db/transaction.ts';
import type { Sealed } from '../../vault/vault.ts';

/** The visible digits of a gift card number: the rest is never stored in clear. */
export function cardDigits(number: string): { bin: string; sub_bin: string; last4: string } {
  return { bin: number.slice(0, 6), sub_bin: number.slice(6, 9), last4: number.slice(-4) };
}

const binding = (column: 'number' | 'pin', rowId: string) => ({ table: 'gift_cards', column, rowId });

/**
 * The keyed fingerprint of a gift card number. Prefixed so that a gift card and a payment card
 * with the same digits never share a fingerprint (both use the merchant's fingerprint key).
 */
export function giftCardFingerprint(db: Executor, ctx: RequestContext, number: string): Promise<string> {
  return ctx.deps.vault.fingerprint(db, ctx.merchantAccountId, `gift-card:${number}`);
}

/** Number and pin encrypted under the merchant's data key, each bound to the row `id` and its column. */
export async function sealGiftCard(
  db: Executor,
  ctx: RequestContext,
  id: string,
  card: { number: string; pin: string },
): Promise<{ number: Sealed; pin: Sealed }> {
  const { vault } = ctx.deps;
  return {
    number: await vault.encrypt(db, ctx.merchantAccountId, card.number, binding('number', id)),
    pin: await vault.encrypt(db, ctx.merchantAccountId, card.pin, binding('pin', id)),
  };
}

/** Releases a stored card's number and pin for one call of the gift card service. */
export async function releaseGiftCard(
  db: Executor,
  ctx: RequestContext,
  row: GiftCardRow,
): Promise<{ number: string; pin: string }> {
  const { vault } = ctx.deps;
  return {
    number: await vault.decrypt(
      db,
      ctx.merchantAccountId,
      { ciphertext: row.number_ciphertext, keyId: row.number_key_id },
      binding('number', row.id),
    ),
    pin: await vault.decrypt(
      db,
      ctx.merchantAccountId,
      { ciphertext: row.pin_ciphertext, keyId: row.pin_key_id },
      binding('pin', row.id),
    ),
  };
}
