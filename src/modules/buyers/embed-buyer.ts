import { hasScope, isEmbed, type RequestContext } from '../../context.ts';
import { AppError, fieldRefusal, forbidden } from '../../errors/app-error.ts';
import type { BuyerReference } from './buyers.service.ts';

const BUYER_FIELDS = ['buyer_id', 'buyer_external_identifier'] as const;
type BuyerField = (typeof BUYER_FIELDS)[number];
export type BuyerSelection = Partial<Record<BuyerField, string | null | undefined>>;

/** The buyer an embed token pins (by id and/or external identifier); empty for other credentials. */
export function embedBuyerPins(ctx: RequestContext): BuyerSelection {
  const embed = isEmbed(ctx.principal) ? ctx.principal!.embed : null;
  const pins: BuyerSelection = {};
  for (const field of BUYER_FIELDS)
    if (typeof embed?.[field] === 'string' && embed[field] !== '') pins[field] = embed[field] as string;
  return pins;
}

/** An embed token without its own grant of `scope` and without a buyer pin. */
export function isUnpinnedEmbed(ctx: RequestContext, scope: string): boolean {
  return isEmbed(ctx.principal) && !hasScope(ctx.principal!, scope) && Object.keys(embedBuyerPins(ctx)).length === 0;
}

/**
 * The buyer selection a query may make (the buyer lists: payment methods, gift cards). Pins apply
 * to bodies only (http/embed.ts), so a query applies them itself: a token pinning a buyer sees that
 * buyer only, a differing query value is 403, and an embed token without a buyer pin (and without
 * its own grant of `scope`) sees no one. `what` names the list in that refusal.
 */
export function pinnedSelection(
  ctx: RequestContext,
  query: BuyerSelection,
  scope: string,
  what: string,
): BuyerSelection {
  const pins = embedBuyerPins(ctx);
  if (Object.keys(pins).length === 0) {
    if (isUnpinnedEmbed(ctx, scope)) throw forbidden(`This embed token pins no buyer: it may not list ${what}`);
    return query;
  }
  const conflicts = BUYER_FIELDS.filter((field) => query[field] != null && query[field] !== pins[field]);
  if (conflicts.length > 0) {
    throw new AppError(
      'forbidden',
      `The request contradicts the embed token: ${conflicts.join(', ')} must equal the pinned value`,
      {
        details: conflicts.map((field) => ({
          location: 'query' as const,
          pointer: `/${field}`,
          message: 'Must equal the value pinned by the embed token',
          type: 'embed_pin_mismatch',
        })),
      },
    );
  }
  return pins;
}

/** The reference a selection makes, or null when it names no buyer. */
export function referenceOf(selection: BuyerSelection): BuyerReference | null {
  if (selection.buyer_id) return { id: selection.buyer_id };
  if (selection.buyer_external_identifier) return { externalIdentifier: selection.buyer_external_identifier };
  return null;
}

/** The reference a list's selection must make (`GET /buyers/payment-methods`, `GET /buyers/gift-cards`): 400 when it names no buyer. */
export function requiredReference(selection: BuyerSelection): BuyerReference {
  const reference = referenceOf(selection);
  if (reference) return reference;
  throw fieldRefusal(
    'query',
    '/buyer_id',
    'buyer_id or buyer_external_identifier is required',
    'missing',
    'Choose the buyer with buyer_id or buyer_external_identifier',
  );
}

/** Both keys given (by the query or by the pins) must name the same buyer, the one `buyer_id` resolved to. */
export function checkSameBuyer(selection: BuyerSelection, buyer: { external_identifier: string | null }): void {
  if (
    selection.buyer_id &&
    selection.buyer_external_identifier &&
    buyer.external_identifier !== selection.buyer_external_identifier
  ) {
    throw new AppError('bad_request', 'buyer_id and buyer_external_identifier name different buyers');
  }
}

/** A body or query names a buyer by one key at most. */
export function singleBuyerReference(input: BuyerSelection, location: 'body' | 'query'): BuyerReference | null {
  if (input.buyer_id && input.buyer_external_identifier) {
    throw fieldRefusal(
      location,
      '/buyer_external_identifier',
      'Use either buyer_id or buyer_external_identifier',
      'value_error',
      'Send buyer_id or buyer_external_identifier, not both',
    );
  }
  return referenceOf(input);
}
