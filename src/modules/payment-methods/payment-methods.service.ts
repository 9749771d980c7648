import { withRequestTransaction, type RequestContext } from '../../context.ts';
import { emitEvent } from '../events/events.service.ts';
import type { PaymentMethodRow } from '../../db/schema.ts';
import type { Executor, Tx } from '../../db/transaction.ts';
import { AppError, invalidField, notFound } from '../../errors/app-error.ts';
import { listPage } from '../../http/pagination.ts';
import { bin, isExpired, last4 } from '../../lib/card-schemes.ts';
import { uuidv7 } from '../../lib/ids.ts';
import { readCheckoutSessionCard } from '../checkout-sessions/checkout-sessions.service.ts';
import { recordAudit } from '../audit-logs/audit-logs.service.ts';
import { buyerResourcesByIds, resolveBuyerReference } from '../buyers/buyers.service.ts';
import { updatePatch } from './payment-method-update.ts';
import * as repo from './payment-methods.repo.ts';
import { checkCard, SECURITY_CODE_TTL_MS } from './stored-cards.service.ts';
import {
  toPaymentMethodResource,
  type CreateCardPaymentMethodBody,
  type CreateCheckoutSessionPaymentMethodBody,
  type CreatePaymentMethodBody,
  type ListPaymentMethodsQuery,
  type PaymentMethod,
  type UpdatePaymentMethodBody,
} from './payment-methods.schemas.ts';
import { singleBuyerReference } from '../buyers/embed-buyer.ts';

interface NewCard {
  number: string;
  expiration_date: string;
  scheme: string;
  card_type?: string | null | undefined;
  external_identifier?: string | null | undefined;
  /** The scheme's transaction id of the customer-initiated payment that stored the card, if the connector answered one. */
  scheme_transaction_id?: string | null | undefined;
}

/** Inserts a validated card: the number encrypted under the merchant's data key, bound to the new row. */
async function insertCard(
  tx: Tx,
  ctx: RequestContext,
  card: NewCard,
  buyerId: string | null,
): Promise<PaymentMethodRow> {
  const { vault } = ctx.deps;
  const merchant = ctx.merchantAccountId;
  const id = uuidv7();
  const sealed = await vault.encrypt(tx, merchant, card.number, {
    table: 'payment_methods',
    column: 'number',
    rowId: id,
  });
  const row = await repo.insertPaymentMethod(tx, {
    merchant_account_id: merchant,
    id,
    method: 'card',
    status: 'succeeded',
    buyer_id: buyerId,
    external_identifier: card.external_identifier ?? null,
    scheme: card.scheme,
    card_type: card.card_type ?? null,
    bin: bin(card.number),
    last4: last4(card.number),
    expiration_date: card.expiration_date,
    fingerprint: await vault.fingerprint(tx, merchant, card.number),
    number_ciphertext: sealed.ciphertext,
    number_key_id: sealed.keyId,
    scheme_transaction_id: card.scheme_transaction_id ?? null,
    scheme_transaction_id_scheme: card.scheme_transaction_id ? card.scheme : null,
  });
  await recordAudit(tx, ctx, 'created', { type: 'payment-method', id, name: `${card.scheme} ${row.last4}` });
  await emitEvent(tx, ctx.deps, {
    merchantAccountId: merchant,
    kind: 'payment_method.created',
    resourceType: 'payment-method',
    resourceId: id,
    payload: toPaymentMethodResource(row),
  });
  return row;
}

/** `POST /payment-methods`: dispatches on the form. */
export async function createPaymentMethod(ctx: RequestContext, body: CreatePaymentMethodBody): Promise<PaymentMethod> {
  return body.method === 'checkout-session' ? storeCheckoutSessionCard(ctx, body) : storeCard(ctx, body);
}

/**
 * Stores a card: validates it, encrypts the number under the merchant's data key (bound to the new
 * row), fingerprints it, and holds a given security code encrypted for at most an hour.
 */
export async function storeCard(ctx: RequestContext, body: CreateCardPaymentMethodBody): Promise<PaymentMethod> {
  const check = checkCard(body);
  const reference = singleBuyerReference(body, 'body');
  return withRequestTransaction(ctx, async (tx) => {
    const buyer = reference ? await resolveBuyerReference(tx, ctx, reference) : null;
    let row = await insertCard(tx, ctx, { ...body, scheme: check.scheme }, buyer?.id ?? null);
    if (body.security_code) {
      const until = new Date(Date.now() + SECURITY_CODE_TTL_MS);
      await ctx.deps.vault.holdSecurityCode(
        tx,
        ctx.merchantAccountId,
        { type: 'payment-method', id: row.id },
        body.security_code,
        until,
      );
      // Payments look for a held code only while this says there may be one (lockAndReleaseCard).
      row = await repo.updatePaymentMethod(tx, ctx.merchantAccountId, row.id, { security_code_held_until: until });
    }
    return toPaymentMethodResource(row, buyer);
  });
}

/**
 * Stores the card a checkout session holds. The session keeps its card data and security code:
 * the transaction that references the session still uses them (decision 0041).
 */
async function storeCheckoutSessionCard(
  ctx: RequestContext,
  body: CreateCheckoutSessionPaymentMethodBody,
): Promise<PaymentMethod> {
  const reference = singleBuyerReference(body, 'body');
  return withRequestTransaction(ctx, async (tx) => {
    const card = await readCheckoutSessionCard(tx, ctx, body.id);
    const buyer = reference ? await resolveBuyerReference(tx, ctx, reference) : null;
    const row = await insertCard(
      tx,
      ctx,
      { ...card, external_identifier: body.external_identifier },
      buyer?.id ?? null,
    );
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

/** `PUT /payment-methods/{id}`: expiry, the scheme transaction id and the transaction link id; `payment_method.updated` when something changed. */
export async function updatePaymentMethod(
  ctx: RequestContext,
  id: string,
  body: UpdatePaymentMethodBody,
): Promise<PaymentMethod> {
  if (body.expiration_date && isExpired(body.expiration_date, new Date()))
    throw invalidField(
      'body',
      '/expiration_date',
      'The card has expired: expiration_date is in the past',
      'card_expired',
    );
  return withRequestTransaction(ctx, async (tx) => {
    const row = await repo.findPaymentMethod(tx, ctx.merchantAccountId, id, { forUpdate: true });
    if (!row) throw notFound('payment method', id);
    const patch = updatePatch(row, body);
    const changed = Object.keys(patch).length > 0;
    const updated = changed
      ? await repo.updatePaymentMethod(tx, ctx.merchantAccountId, id, { ...patch, updated_at: new Date() })
      : row;
    await recordAudit(tx, ctx, 'updated', {
      type: 'payment-method',
      id,
      name: `${row.scheme ?? row.method} ${row.last4 ?? ''}`.trim(),
    });
    if (changed)
      await emitEvent(tx, ctx.deps, {
        merchantAccountId: ctx.merchantAccountId,
        kind: 'payment_method.updated',
        resourceType: 'payment-method',
        resourceId: id,
        payload: toPaymentMethodResource(updated),
      });
    return toPaymentMethodResource(updated, await buyerResourceOf(tx, ctx, updated.buyer_id));
  });
}

export async function deletePaymentMethod(ctx: RequestContext, id: string): Promise<void> {
  await withRequestTransaction(ctx, async (tx) => {
    const row = await repo.findPaymentMethod(tx, ctx.merchantAccountId, id, { forUpdate: true });
    if (!row) throw notFound('payment method', id);
    // The ciphertext goes with the row; a held security code goes too.
    await ctx.deps.vault.takeSecurityCode(tx, ctx.merchantAccountId, { type: 'payment-method', id });
    await repo.deletePaymentMethod(tx, ctx.merchantAccountId, id);
    await recordAudit(tx, ctx, 'deleted', {
      type: 'payment-method',
      id,
      name: `${row.scheme ?? row.method} ${row.last4 ?? ''}`.trim(),
    });
    await emitEvent(tx, ctx.deps, {
      merchantAccountId: ctx.merchantAccountId,
      kind: 'payment_method.deleted',
      resourceType: 'payment-method',
      resourceId: id,
      payload: toPaymentMethodResource(row),
    });
  });
}

export async function listPaymentMethods(ctx: RequestContext, query: ListPaymentMethodsQuery) {
  const reference = singleBuyerReference(query, 'query');
  const buyer = reference ? await resolveBuyerReference(ctx.deps.db, ctx, reference, { missingIsNull: true }) : null;
  if (reference && !buyer) return { items: [], limit: query.limit, next_cursor: null, previous_cursor: null };
  const filter = {
    buyerId: buyer?.id,
    externalIdentifier: query.external_identifier ?? undefined,
    statuses: query.status ?? undefined,
  };
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
  return {
    ...page,
    items: page.items.map((row) =>
      toPaymentMethodResource(row, row.buyer_id ? (buyers.get(row.buyer_id) ?? null) : null),
    ),
  };
}

/** A stored card with its number released by the vault, for one call of another module. */
export interface ReleasedCard {
  id: string;
  scheme: string | null;
  expirationDate: string | null;
  number: string;
  buyerId: string | null;
  fingerprint: string | null;
  /** The vault may hold a security code for this card (stored with one, less than its time ago). */
  securityCodeHeld: boolean;
  /** The card has no scheme transaction id yet: its next approved customer-initiated payment gives it one. */
  lacksSchemeTransactionId: boolean;
  /** The card's scheme transaction id (its first approved customer-initiated payment's), which merchant-initiated payments send. */
  schemeTransactionId: string | null;
}

/**
 * For other modules (network tokens): locks a stored card `FOR UPDATE` in the caller's transaction
 * and releases its number for one call. 404 when the method does not exist in this merchant
 * account; 400 when it is not a usable card. `lock: false` (transactions) reads without locking, so
 * concurrent payments with one card do not queue behind each other.
 */
export async function lockAndReleaseCard(
  tx: Executor,
  ctx: RequestContext,
  id: string,
  options: { lock?: boolean } = {},
): Promise<ReleasedCard> {
  const row = await repo.findPaymentMethod(tx, ctx.merchantAccountId, id, { forUpdate: options.lock ?? true });
  if (!row) throw notFound('payment method', id);
  if (row.method !== 'card' || !row.number_ciphertext || !row.number_key_id || row.status !== 'succeeded') {
    throw new AppError('bad_request', 'The payment method is not a stored card that can be used');
  }
  const number = await ctx.deps.vault.decrypt(
    tx,
    ctx.merchantAccountId,
    { ciphertext: row.number_ciphertext, keyId: row.number_key_id },
    { table: 'payment_methods', column: 'number', rowId: id },
  );
  const securityCodeHeld = row.security_code_held_until !== null && row.security_code_held_until.getTime() > Date.now();
  return {
    id,
    scheme: row.scheme,
    expirationDate: row.expiration_date,
    number,
    buyerId: row.buyer_id,
    fingerprint: row.fingerprint,
    securityCodeHeld,
    lacksSchemeTransactionId: row.scheme_transaction_id === null,
    schemeTransactionId: row.scheme_transaction_id,
  };
}

/**
 * For transactions with `store: true`: vaults the card that was just authorized, in the caller's
 * transaction, and returns the new payment method's id.
 */
export async function storeAuthorizedCard(
  tx: Tx,
  ctx: RequestContext,
  card: NewCard,
  buyerId: string | null,
): Promise<{ id: string }> {
  const row = await insertCard(tx, ctx, card, buyerId);
  return { id: row.id };
}

/**
 * For the transaction engine, with the writes that record a payment's answer: the statement that
 * gives a stored card the scheme's transaction id of its first approved customer-initiated payment
 * (`recordSchemeTransactionIdQuery`; no webhook, the transaction's own carry the id).
 */
export function schemeTransactionIdQuery(
  db: Executor,
  merchantAccountId: string,
  paymentMethodId: string,
  schemeTransactionId: string,
  scheme: string | null,
  now: Date,
) {
  return repo.recordSchemeTransactionIdQuery(db, merchantAccountId, paymentMethodId, schemeTransactionId, scheme, now);
}

/** 404 unless the payment method exists in the merchant account of the request. */
export async function assertPaymentMethodExists(db: Executor, ctx: RequestContext, id: string): Promise<void> {
  if (!(await repo.findPaymentMethod(db, ctx.merchantAccountId, id))) throw notFound('payment method', id);
}

/**
 * For other modules (token reconciliation, the blocklist): a card's BIN, last 4 and keyed
 * fingerprint, never the number.
 */
export async function cardHintOf(
  db: Executor,
  merchantAccountId: string,
  id: string,
): Promise<{ bin: string | null; last4: string | null; fingerprint: string | null } | null> {
  const row = await repo.findPaymentMethod(db, merchantAccountId, id);
  return row ? { bin: row.bin, last4: row.last4, fingerprint: row.fingerprint } : null;
}
