import type { RequestContext } from '../../context.ts';
import { AppError } from '../../errors/app-error.ts';
import { pinnedSelection, referenceOf, type BuyerSelection } from '../buyers/embed-buyer.ts';
import { resolveBuyerReference, type BuyerReference } from '../buyers/buyers.service.ts';
import * as repo from './payment-methods.repo.ts';
import { toPaymentMethodSummary, type ListBuyerPaymentMethodsQuery, type PaymentMethodSummary } from './payment-methods.schemas.ts';

/** The list is plain (no cursor): a buyer keeps few methods, and at most this many are returned. */
export const BUYER_PAYMENT_METHODS_LIMIT = 100;

/** The buyer the selection names; the list needs one. */
function requiredReference(selection: BuyerSelection): BuyerReference {
  const reference = referenceOf(selection);
  if (reference) return reference;
  throw new AppError('bad_request', 'Choose the buyer with buyer_id or buyer_external_identifier', {
    details: [{ location: 'query', pointer: '/buyer_id', message: 'buyer_id or buyer_external_identifier is required', type: 'missing' }],
  });
}

/**
 * `GET /buyers/payment-methods`: the usable (status `succeeded`) stored methods of one buyer, by
 * last use. An unknown buyer is 404, as for `GET /buyers/{buyer_id}`.
 */
export async function listBuyerPaymentMethods(ctx: RequestContext, query: ListBuyerPaymentMethodsQuery): Promise<{ items: PaymentMethodSummary[] }> {
  const selection = pinnedSelection(ctx, query, 'payment-methods.read', 'payment methods');
  const buyer = (await resolveBuyerReference(ctx.deps.db, ctx, requiredReference(selection)))!;
  // Both keys given (by the query or by the pins) must name the same buyer.
  if (selection.buyer_id && selection.buyer_external_identifier && buyer.external_identifier !== selection.buyer_external_identifier) {
    throw new AppError('bad_request', 'buyer_id and buyer_external_identifier name different buyers');
  }
  const rows = await repo.listBuyerPaymentMethods(ctx.deps.db, ctx.merchantAccountId, buyer.id, query.order_by, BUYER_PAYMENT_METHODS_LIMIT);
  const items = rows
    .map(toPaymentMethodSummary)
    .filter((item) => (!query.country || !item.country || item.country === query.country) && (!query.currency || !item.currency || item.currency === query.currency));
  return { items };
}
