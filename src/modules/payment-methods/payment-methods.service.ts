import { withRequestTransaction, type RequestContext } from '../../context.ts';
import type { Executor } from '../../db/transaction.ts';
import { AppError, invalidField, notFound } from '../../errors/app-error.ts';
import { listPage } from '../../http/pagination.ts';
import { bin, cardNumberProblem, isExpired, last4, validateCardNumber } from '../../lib/card-schemes.ts';
import { uuidv7 } from '../../lib/ids.ts';
import { recordAudit } from '../audit-logs/audit-logs.service.ts';
import { buyerResourcesByIds, resolveBuyerReference, type BuyerReference } from '../buyers/buyers.service.ts';
import * as repo from './payment-methods.repo.ts';
import { toPaymentMethodResource, type CreateCardPaymentMethodBody, type ListPaymentMethodsQuery, type PaymentMethod } from './payment-methods.schemas.ts';

/** How long a security code given with a stored card is kept (encrypted) for its first use. */
export const SECURITY_CODE_TTL_MS = 60 * 60 * 1000;

function checkCard(body: CreateCardPaymentMethodBody) {
  const check = validateCardNumber(body.number);
  if (!check.ok) throw invalidField('body', '/number', cardNumberProblem(check), `card_number_${check.reason}`);
  if (isExpired(body.expiration_date, new Date())) throw invalidField('body', '/expiration_date', 'The card has expired: expiration_date is in the past', 'card_expired');
  return check;
}

function buyerReference(body: { buyer_id?: string | null; buyer_external_identifier?: string | null }): BuyerReference | null {
  if (body.buyer_id && body.buyer_external_identifier) {
    throw new AppError('bad_request', 'Send buyer_id or buyer_external_identifier, not both', {
      details: [{ location: 'body', pointer: '/buyer_external_identifier', message: 'Use either buyer_id or buyer_external_identifier', type: 'value_error' }],
    });
  }
  if (body.buyer_id) return { id: body.buyer_id };
  if (body.buyer_external_identifier) return { externalIdentifier: body.buyer_external_identifier };
  return null;
}

/**
 * Stores a card: validates it, encrypts the number under the merchant's data key (bound to the new
 * row), fingerprints it, and holds a given security code encrypted for at most an hour.
 */
export async function storeCard(ctx: RequestContext, body: CreateCardPaymentMethodBody): Promise<PaymentMethod> {
  const check = checkCard(body);
  const reference = buyerReference(body);
  const { vault } = ctx.deps;
  const merchant = ctx.merchantAccountId;
  return withRequestTransaction(ctx, async (tx) => {
    const buyer = reference ? await resolveBuyerReference(tx, ctx, reference) : null;
    const id = uuidv7();
    const sealed = await vault.encrypt(tx, merchant, body.number, { table: 'payment_methods', column: 'number', rowId: id });
    const row = await repo.insertPaymentMethod(tx, {
      merchant_account_id: merchant,
      id,
      method: 'card',
      status: 'succeeded',
      buyer_id: buyer?.id ?? null,
      external_identifier: body.external_identifier ?? null,
      scheme: check.scheme,
      card_type: body.card_type ?? null,
      bin: bin(body.number),
      last4: last4(body.number),
      expiration_date: body.expiration_date,
      fingerprint: await vault.fingerprint(tx, merchant, body.number),
      number_ciphertext: sealed.ciphertext,
      number_key_id: sealed.keyId,
    });
    if (body.security_code) {
      await vault.holdSecurityCode(tx, merchant, { type: 'payment-method', id }, body.security_code, new Date(Date.now() + SECURITY_CODE_TTL_MS));
    }
    await recordAudit(tx, ctx, 'created', { type: 'payment-method', id, name: `${check.scheme} ${row.last4}` });
    return toPaymentMethodResource(row, buyer);
  });
}

async function buyerResourceOf(db: Executor, ctx: RequestContext, buyerId: string | null): Promise<unknown> {
  if (!buyerId) return null;
  return (await buyerResourcesByIds(db, ctx, [buyerId])).get(buyerId) ?? null;
}

export async function getPaymentMethod(ctx: RequestContext, id: string): Promise<PaymentMethod> {
  const row = await repo.findPaymentMethod(ctx.deps.db, ctx.merchantAccountId, id);
  if (!row) throw notFound('payment method', id);
  return toPaymentMethodResource(row, await buyerResourceOf(ctx.deps.db, ctx, row.buyer_id));
}

export async function deletePaymentMethod(ctx: RequestContext, id: string): Promise<void> {
  await withRequestTransaction(ctx, async (tx) => {
    const row = await repo.findPaymentMethod(tx, ctx.merchantAccountId, id, { forUpdate: true });
    if (!row) throw notFound('payment method', id);
    // The ciphertext goes with the row; a held security code goes too.
    await ctx.deps.vault.takeSecurityCode(tx, ctx.merchantAccountId, { type: 'payment-method', id });
    await repo.deletePaymentMethod(tx, ctx.merchantAccountId, id);
    await recordAudit(tx, ctx, 'deleted', { type: 'payment-method', id, name: `${row.scheme ?? row.method} ${row.last4 ?? ''}`.trim() });
  });
}

export async function listPaymentMethods(ctx: RequestContext, query: ListPaymentMethodsQuery) {
  const reference = buyerReference(query);
  const buyer = reference ? await resolveBuyerReference(ctx.deps.db, ctx, reference, { missingIsNull: true }) : null;
  if (reference && !buyer) return { items: [], limit: query.limit, next_cursor: null, previous_cursor: null };
  const filter = { buyerId: buyer?.id, externalIdentifier: query.external_identifier ?? undefined, statuses: query.status ?? undefined };
  const listName = `payment-methods:${filter.buyerId ?? ''}:${filter.externalIdentifier ?? ''}:${(filter.statuses ?? []).join(',')}`;
  const page = await listPage(
    ctx,
    listName,
    query,
    (position, limit) => repo.listPaymentMethods(ctx.deps.db, ctx.merchantAccountId, filter, position, limit),
    (row) => row,
    (row) => [row.created_at, row.id],
  );
  // The page's buyers in one query, not one per item.
  const buyerIds = [...new Set(page.items.map((row) => row.buyer_id).filter((id): id is string => id !== null))];
  const buyers = await buyerResourcesByIds(ctx.deps.db, ctx, buyerIds);
  return { ...page, items: page.items.map((row) => toPaymentMethodResource(row, row.buyer_id ? buyers.get(row.buyer_id) ?? null : null)) };
}
