import type { RequestContext } from '../../context.ts';
import type { PaymentMethodRow } from '../../db/schema.ts';
import type { Executor } from '../../db/transaction.ts';
import { invalidField } from '../../errors/app-error.ts';
import { cardNumberProblem, isExpired, validateCardNumber } from '../../lib/card-schemes.ts';
import * as repo from './payment-methods.repo.ts';

/**
 * The card rules and lookups other modules share with payment methods (checkout sessions today).
 * Kept apart from `payment-methods.service.ts`, which itself reads checkout sessions' cards: each
 * side imports this file, so the two services never import each other.
 */

/** How long a security code given with a card is kept (encrypted) for its first use. */
export const SECURITY_CODE_TTL_MS = 60 * 60 * 1000;

/**
 * The checks every card given to the API passes (stored cards, checkout session fields): digits,
 * length for its scheme, Luhn, expiry not in the past. `pointer` is where the card sits in the body.
 * The number is never part of the error.
 */
export function checkCard(card: { number: string; expiration_date: string }, pointer = '') {
  const check = validateCardNumber(card.number);
  if (!check.ok)
    throw invalidField('body', `${pointer}/number`, cardNumberProblem(check), `card_number_${check.reason}`);
  if (isExpired(card.expiration_date, new Date()))
    throw invalidField(
      'body',
      `${pointer}/expiration_date`,
      'The card has expired: expiration_date is in the past',
      'card_expired',
    );
  return check;
}

/** A stored card of the merchant account, for a checkout session that pays with it; null when there is none. */
export async function findStoredCard(db: Executor, ctx: RequestContext, id: string): Promise<PaymentMethodRow | null> {
  const row = await repo.findPaymentMethod(db, ctx.merchantAccountId, id);
  return row && row.method === 'card' && row.number_ciphertext ? row : null;
}
