import { hasScope, isEmbed, type RequestContext } from '../../../context.ts';
import { forbidden, notFound } from '../../../errors/app-error.ts';
import { isUnpinnedEmbed } from '../../buyers/embed-buyer.ts';
import type { CreateTransactionBody } from '../create-transaction.schema.ts';

/**
 * A stored card is usable only by its own buyer (docs/security.md). An embed token, the browser's
 * credential, acts for the buyer it pins or for no stored buyer at all. Pinning none, it may name
 * no stored buyer and pay with no stored card (403). Pinning one, every buyer field of the body must
 * be that buyer (http/embed.ts), and a stored card must be that buyer's (404 like an unknown id).
 * Server-to-server tokens may pay with any stored card of the account; a buyer they name must be
 * the card's (prepare-transaction.ts). As for the buyer lists (modules/buyers/embed-buyer.ts), an
 * embed token that also holds `transactions.write` of its own is a server-to-server token here.
 */

const SCOPE = 'transactions.write';
const browser = (ctx: RequestContext) => isEmbed(ctx.principal) && !hasScope(ctx.principal!, SCOPE);
const unpinned = (ctx: RequestContext) => isUnpinnedEmbed(ctx, SCOPE);

const noStoredCard = () => forbidden('This embed token pins no buyer: it may not pay with a stored payment method');

/**
 * Before anything is looked up, so the answer is the same whether a named card exists or not: an
 * embed token without a buyer pin naming a stored buyer, or paying with a stored card by id.
 */
export function checkUnpinnedEmbed(ctx: RequestContext, body: CreateTransactionBody): void {
  if (!unpinned(ctx)) return;
  const form = body.payment_method as
    | { method: string; buyer_id?: string | null; buyer_external_identifier?: string | null }
    | null
    | undefined;
  if (body.buyer_id || body.buyer_external_identifier || form?.buyer_id || form?.buyer_external_identifier)
    throw forbidden('This embed token pins no buyer: it may not name a stored buyer');
  if (form?.method === 'id') throw noStoredCard();
}

/**
 * A stored card an embed token pays with (by id, or held by a checkout session) must be the card of
 * `buyerId`, the buyer the token pins (null when the body names none). A card of another buyer or of
 * no buyer is 404, the answer for an unknown id.
 */
export function requireEmbedBuyerCard(
  ctx: RequestContext,
  card: { id: string; owner: string | null },
  buyerId: string | null,
): void {
  if (!browser(ctx)) return;
  if (unpinned(ctx)) throw noStoredCard();
  if (card.owner === null || card.owner !== buyerId) throw notFound('payment method', card.id);
}
