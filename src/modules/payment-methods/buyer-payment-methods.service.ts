import type { RequestContext } from '../../context.ts';
import { checkSameBuyer, pinnedSelection, requiredReference } from '../buyers/embed-buyer.ts';
import { resolveBuyerReference } from '../buyers/buyers.service.ts';
import * as repo from './payment-methods.repo.ts';
import {
  toPaymentMethodSummary,
  type ListBuyerPaymentMethodsQuery,
  type PaymentMethodSummary,
} from './payment-methods.schemas.ts';

/** The list is plain (no cursor): a buyer keeps few methods, and at most this many are returned. */
export const BUYER_PAYMENT_METHODS_LIMIT = 100;

/**
 * `GET /buyers/payment-methods`: the usable (status `succeeded`) stored methods of one buyer, by
 * last use. An unknown buyer is 404, as for `GET /buyers/{buyer_id}`.
 */
export async function listBuyerPaymentMethods(
  ctx: RequestContext,
  query: ListBuyerPaymentMethodsQuery,
): Promise<{ items: PaymentMethodSummary[] }> {
  const selection = pinnedSelection(ctx, query, 'payment-methods.read', 'payment methods');
  const buyer = (await resolveBuyerReference(ctx.deps.db, ctx, requiredReference(selection)))!;
  checkSameBuyer(selection, buyer);
  const rows = await repo.listBuyerPaymentMethods(
    ctx.deps.db,
    ctx.merchantAccountId,
    buyer.id,
    query.order_by,
    BUYER_PAYMENT_METHODS_LIMIT,
  );
  const items = rows
    .map(toPaymentMethodSummary)
    .filter(
      (item) =>
        (!query.country || !item.country || item.country === query.country) &&
        (!query.currency || !item.currency || item.currency === query.currency),
    );
  return { items };
}
