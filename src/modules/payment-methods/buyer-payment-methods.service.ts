import { hasScope, isEmbed, type RequestContext } from '../../context.ts';
import { AppError, forbidden } from '../../errors/app-error.ts';
import { resolveBuyerReference, type BuyerReference } from '../buyers/buyers.service.ts';
import * as repo from './payment-methods.repo.ts';
import { toPaymentMethodSummary, type ListBuyerPaymentMethodsQuery, type PaymentMethodSummary } from './payment-methods.schemas.ts';

/** The list is plain (no cursor): a buyer keeps few methods, and at most this many are returned. */
export const BUYER_PAYMENT_METHODS_LIMIT = 100;

const BUYER_FIELDS = ['buyer_id', 'buyer_external_identifier'] as const;
type BuyerField = (typeof BUYER_FIELDS)[number];
type BuyerQuery = Partial<Record<BuyerField, string | null | undefined>>;

const pinMismatch = (fields: BuyerField[]) =>
  new AppError('forbidden', `The request contradicts the embed token: ${fields.join(', ')} must equal the pinned value`, {
    details: fields.map((field) => ({ location: 'query' as const, pointer: `/${field}`, message: 'Must equal the value pinned by the embed token', type: 'embed_pin_mismatch' })),
  });

/**
 * The buyer selection an embed token allows. Pins apply to bodies only (http/embed.ts), so this
 * list applies them to its query itself: a token pinning a buyer sees that buyer only, a query
 * value that differs from the pin (or selects by a key the token does not pin) is 403, and an
 * embed token without a buyer pin may not list anyone's methods.
 */
function pinnedSelection(ctx: RequestContext, query: BuyerQuery): BuyerQuery {
  const embed = ctx.principal?.embed ?? null;
  const pins: BuyerQuery = {};
  for (const field of BUYER_FIELDS) if (typeof embed?.[field] === 'string' && embed[field] !== '') pins[field] = embed[field] as string;
  if (Object.keys(pins).length === 0) {
    if (isEmbed(ctx.principal) && !hasScope(ctx.principal!, 'payment-methods.read')) throw forbidden('This embed token pins no buyer: it may not list payment methods');
    return query;
  }
  const conflicts = BUYER_FIELDS.filter((field) => query[field] != null && query[field] !== pins[field]);
  if (conflicts.length > 0) throw pinMismatch(conflicts);
  return pins;
}

function referenceOf(selection: BuyerQuery): BuyerReference {
  if (selection.buyer_id) return { id: selection.buyer_id };
  if (selection.buyer_external_identifier) return { externalIdentifier: selection.buyer_external_identifier };
  throw new AppError('bad_request', 'Choose the buyer with buyer_id or buyer_external_identifier', {
    details: [{ location: 'query', pointer: '/buyer_id', message: 'buyer_id or buyer_external_identifier is required', type: 'missing' }],
  });
}

/**
 * `GET /buyers/payment-methods`: the usable (status `succeeded`) stored methods of one buyer, by
 * last use. An unknown buyer is 404, as for `GET /buyers/{buyer_id}`.
 */
export async function listBuyerPaymentMethods(ctx: RequestContext, query: ListBuyerPaymentMethodsQuery): Promise<{ items: PaymentMethodSummary[] }> {
  const selection = pinnedSelection(ctx, query);
  const buyer = (await resolveBuyerReference(ctx.deps.db, ctx, referenceOf(selection)))!;
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
