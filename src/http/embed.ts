import { isDeepStrictEqual } from 'node:util';
import type { Principal } from '../context.ts';
import { AppError } from '../errors/app-error.ts';

/** Claims of an `embed` token that pin the request body field of the same name. */
export const PINNED_FIELDS = ['amount', 'currency', 'buyer_id', 'buyer_external_identifier', 'metadata', 'cart_items', 'connection_options'] as const;

/** The merchant account an embed token is pinned to, if any. */
export function embedMerchantAccount(principal: Principal): string | null {
  const value = principal.embed?.merchant_account_id;
  return typeof value === 'string' && value !== '' ? value : null;
}

/**
 * Applies the embed claim to a request body: a pinned field the body leaves out takes the pinned
 * value; a pinned field the body sets to anything else is refused with 403 (the token does not
 * permit that request), naming the field.
 */
export function applyEmbedPins(principal: Principal, body: unknown): void {
  const embed = principal.embed;
  if (!embed || body === null || typeof body !== 'object' || Array.isArray(body)) return;
  const target = body as Record<string, unknown>;
  const conflicts = PINNED_FIELDS.filter((field) => {
    if (!(field in embed)) return false;
    if (target[field] === undefined) {
      target[field] = structuredClone(embed[field]);
      return false;
    }
    return !isDeepStrictEqual(target[field], embed[field]);
  });
  if (conflicts.length > 0) {
    throw new AppError('forbidden', `The request contradicts the embed token: ${conflicts.join(', ')} must equal the pinned value${conflicts.length > 1 ? 's' : ''}`, {
      details: conflicts.map((field) => ({ location: 'body' as const, pointer: `/${field}`, message: `Must equal the value pinned by the embed token`, type: 'embed_pin_mismatch' })),
    });
  }
}
