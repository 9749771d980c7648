import {
  withRequestTransaction,
  type CheckoutSessionCredential,
  type Deps,
  type RequestContext,
} from '../../context.ts';
import type { CheckoutSessionRow } from '../../db/schema.ts';
import type { Executor, Tx } from '../../db/transaction.ts';
import { randomUUID } from 'node:crypto';
import { AppError, invalidField, notFound } from '../../errors/app-error.ts';
import { bin, last4 } from '../../lib/card-schemes.ts';
import { isUuid } from '../../lib/ids.ts';
import { recordAudit } from '../audit-logs/audit-logs.service.ts';
import { findBuyerRow } from '../buyers/buyer-snapshots.service.ts';
import { canReadPersonalData, resolveBuyerReference } from '../buyers/buyers.service.ts';
import { findUsablePaymentService } from '../payment-services/payment-services.service.ts';
import { checkCard, findStoredCard, SECURITY_CODE_TTL_MS } from '../payment-methods/stored-cards.service.ts';
import * as repo from './checkout-sessions.repo.ts';
import { inBatchesUntilDone } from '../../lib/batches.ts';
import { threeDsConfigurationFor } from '../three-ds-configurations/three-ds-configurations.service.ts';
import {
  toCheckoutSessionResource,
  type CheckoutSession,
  type CheckoutSessionAcquirer,
  type CheckoutSessionFieldsBody,
  type CreateCheckoutSessionBody,
  type UpdateCheckoutSessionBody,
} from './checkout-sessions.schemas.ts';

const json = (value: unknown) => (value === null || value === undefined ? null : JSON.stringify(value));
const owner = (id: string) => ({ type: 'checkout-session' as const, id });
const numberBinding = (id: string) => ({ table: 'checkout_sessions', column: 'number', rowId: id });
const audited = (row: CheckoutSessionRow) => ({
  type: 'checkout-session',
  id: row.id,
  name: `checkout session ${row.id}`,
});
const isLive = (row: CheckoutSessionRow | undefined): row is CheckoutSessionRow =>
  row !== undefined && row.expires_at.getTime() > Date.now();
const expiry = (deps: Deps, expiresIn: number | undefined) =>
  new Date(Date.now() + Math.round((expiresIn ?? deps.config.checkoutSessionTtlSeconds) * 1000));

/** The columns a create or update body sets; only the fields sent (null clears one). */
function patchOf(body: UpdateCheckoutSessionBody): repo.CheckoutSessionPatch {
  const patch: repo.CheckoutSessionPatch = {};
  if (body.cart_items !== undefined) patch.cart_items = json(body.cart_items);
  if (body.metadata !== undefined) patch.metadata = json(body.metadata);
  if (body.buyer !== undefined) patch.buyer = json(body.buyer);
  if (body.buyer_id !== undefined) patch.buyer_id = body.buyer_id;
  if (body.airline !== undefined) patch.airline = json(body.airline);
  if (body.amount !== undefined) patch.amount = body.amount;
  if (body.currency !== undefined) patch.currency = body.currency;
  if (body.payment_service_id !== undefined) patch.payment_service_id = body.payment_service_id;
  return patch;
}

/** A payment service or buyer the body names must be the merchant account's own: 404 otherwise, as everywhere. */
async function checkReferences(tx: Executor, ctx: RequestContext, body: UpdateCheckoutSessionBody): Promise<void> {
  const serviceId = body.payment_service_id;
  if (serviceId !== undefined && serviceId !== null) {
    // The contract types the field as a string: anything that is not a UUID names no service.
    const service = isUuid(serviceId) ? await findUsablePaymentService(tx, ctx.merchantAccountId, serviceId) : null;
    if (!service) throw notFound('payment service', serviceId);
  }
  if (body.buyer_id !== undefined && body.buyer_id !== null) await findBuyerRow(tx, ctx, { id: body.buyer_id });
}

/**
 * `POST /checkout/sessions`. The id is a random UUID v4 (122 random bits), not a v7: it is the
 * credential of the fields endpoint, so no part of it may be the time it was made.
 */
export async function createCheckoutSession(
  ctx: RequestContext,
  body: CreateCheckoutSessionBody,
): Promise<CheckoutSession> {
  return withRequestTransaction(ctx, async (tx) => {
    await checkReferences(tx, ctx, body);
    const row = await repo.insertCheckoutSession(tx, {
      merchant_account_id: ctx.merchantAccountId,
      id: randomUUID(),
      ...patchOf(body),
      expires_at: expiry(ctx.deps, body.expires_in),
    });
    await recordAudit(tx, ctx, 'created', audited(row));
    return toCheckoutSessionResource(row, canReadPersonalData(ctx));
  });
}

/** An expired session reads as absent. */
export async function getCheckoutSession(ctx: RequestContext, id: string): Promise<CheckoutSession> {
  const row = await repo.findCheckoutSession(ctx.deps.db, ctx.merchantAccountId, id);
  if (!isLive(row)) throw notFound('checkout session', id);
  return toCheckoutSessionResource(row, canReadPersonalData(ctx));
}

export async function updateCheckoutSession(
  ctx: RequestContext,
  id: string,
  body: UpdateCheckoutSessionBody,
): Promise<CheckoutSession> {
  return withRequestTransaction(ctx, async (tx) => {
    const current = await repo.findCheckoutSession(tx, ctx.merchantAccountId, id, { forUpdate: true });
    if (!isLive(current)) throw notFound('checkout session', id);
    await checkReferences(tx, ctx, body);
    const patch = patchOf(body);
    if (body.expires_in !== undefined) patch.expires_at = expiry(ctx.deps, body.expires_in);
    const row = await repo.updateCheckoutSession(tx, ctx.merchantAccountId, id, patch);
    await recordAudit(tx, ctx, 'updated', audited(row));
    return toCheckoutSessionResource(row, canReadPersonalData(ctx));
  });
}

/** Deletes a session with its card data and security code; an expired session may be deleted too. */
export async function deleteCheckoutSession(ctx: RequestContext, id: string): Promise<void> {
  await withRequestTransaction(ctx, async (tx) => {
    const row = await repo.findCheckoutSession(tx, ctx.merchantAccountId, id, { forUpdate: true });
    if (!row) throw notFound('checkout session', id);
    await ctx.deps.vault.discardSecurityCode(tx, ctx.merchantAccountId, owner(id));
    await repo.deleteCheckoutSession(tx, ctx.merchantAccountId, id);
    await recordAudit(tx, ctx, 'deleted', audited(row));
  });
}

/** `Deps.resolveCheckoutSession`: the session behind a fields request (expiry is checked by the caller). */
export async function resolveCheckoutSession(deps: Deps, id: string): Promise<CheckoutSessionCredential | null> {
  const row = await repo.findCheckoutSessionCredential(deps.db, id);
  return row ? { id: row.id, merchantAccountId: row.merchant_account_id, expiresAt: row.expires_at } : null;
}

/**
 * The stored buyer a session is for: its `buyer_id`, else the stored buyer its guest buyer's
 * `external_identifier` names (the only buyer field of the public model); null for a guest.
 */
async function sessionBuyer(db: Executor, ctx: RequestContext, row: CheckoutSessionRow): Promise<string | null> {
  if (row.buyer_id) return row.buyer_id;
  const external = (row.buyer as { external_identifier?: string | null } | null)?.external_identifier;
  if (!external) return null;
  return (await resolveBuyerReference(db, ctx, { externalIdentifier: external }, { missingIsNull: true }))?.id ?? null;
}

/**
 * A stored card is usable only by its own buyer: a session takes (and releases) only a card of the
 * buyer it is for. Any other card, a card of no buyer included, is 404 like an unknown id, so the
 * browser holding the session id learns nothing of other buyers' cards.
 */
async function requireOwnCard(
  db: Executor,
  ctx: RequestContext,
  row: CheckoutSessionRow,
  cardBuyerId: string | null,
  cardId: string,
): Promise<void> {
  const buyer = cardBuyerId === null ? null : await sessionBuyer(db, ctx, row);
  if (buyer === null || buyer !== cardBuyerId) throw notFound('payment method', cardId);
}

/** The card columns of the fields body (the number encrypted, bound to the session row). */
async function cardColumns(
  tx: Tx,
  ctx: RequestContext,
  session: CheckoutSessionRow,
  body: CheckoutSessionFieldsBody,
): Promise<repo.CheckoutSessionPatch> {
  const sessionId = session.id;
  const card = body.payment_method;
  if (card.method === 'id') {
    const stored = await findStoredCard(tx, ctx, card.id);
    if (!stored) throw notFound('payment method', card.id);
    await requireOwnCard(tx, ctx, session, stored.buyer_id, card.id);
    return {
      ...repo.NO_CARD_DATA,
      method: 'id',
      payment_method_id: stored.id,
      scheme: stored.scheme,
      bin: stored.bin,
      last4: stored.last4,
      expiration_date: stored.expiration_date,
      fingerprint: stored.fingerprint,
    };
  }
  const check = checkCard(card, '/payment_method');
  const { vault } = ctx.deps;
  const sealed = await vault.encrypt(tx, ctx.merchantAccountId, card.number, numberBinding(sessionId));
  return {
    ...repo.NO_CARD_DATA,
    method: 'card',
    scheme: check.scheme,
    bin: bin(card.number),
    last4: last4(card.number),
    expiration_date: card.expiration_date,
    fingerprint: await vault.fingerprint(tx, ctx.merchantAccountId, card.number),
    number_ciphertext: sealed.ciphertext,
    number_key_id: sealed.keyId,
  };
}

/**
 * `POST`/`PUT /checkout/sessions/{id}/fields`: replaces the session's card data. A security code is
 * held encrypted until the session expires (at most an hour); card data sent without one drops an
 * older code, which belonged to the previous card.
 */
export async function setCheckoutSessionFields(
  ctx: RequestContext,
  sessionId: string,
  body: CheckoutSessionFieldsBody,
): Promise<void> {
  if (body.payment_method.method === 'card') checkCard(body.payment_method, '/payment_method');
  await withRequestTransaction(ctx, async (tx) => {
    const row = await repo.findCheckoutSession(tx, ctx.merchantAccountId, sessionId, { forUpdate: true });
    if (!isLive(row)) throw notFound('checkout session', sessionId);
    await repo.updateCheckoutSession(tx, ctx.merchantAccountId, sessionId, await cardColumns(tx, ctx, row, body));
    const code = body.payment_method.security_code;
    if (code) {
      const until = new Date(Math.min(row.expires_at.getTime(), Date.now() + SECURITY_CODE_TTL_MS));
      await ctx.deps.vault.holdSecurityCode(tx, ctx.merchantAccountId, owner(sessionId), code, until);
    } else {
      await ctx.deps.vault.discardSecurityCode(tx, ctx.merchantAccountId, owner(sessionId));
    }
  });
}

/**
 * `GET /checkout/sessions/{id}/acquirer`: the acquirer data of the merchant account's 3DS
 * configuration for the session's card scheme and currency (that currency's, else the scheme's
 * configuration for every currency). 404 while the session holds no card, or without a configuration.
 */
export async function getCheckoutSessionAcquirer(ctx: RequestContext, id: string): Promise<CheckoutSessionAcquirer> {
  const row = await repo.findCheckoutSession(ctx.deps.db, ctx.merchantAccountId, id);
  if (!isLive(row)) throw notFound('checkout session', id);
  if (!row.scheme)
    throw new AppError(
      'not_found',
      `Checkout session ${id} holds no card yet: send its card with PUT /checkout/sessions/${id}/fields first`,
    );
  const config = await threeDsConfigurationFor(ctx.deps.db, ctx.merchantAccountId, row.scheme, row.currency);
  if (!config)
    throw new AppError(
      'not_found',
      `No 3DS configuration for scheme ${row.scheme}${row.currency ? ` and currency ${row.currency}` : ''} on this merchant account`,
    );
  return {
    scheme: row.scheme,
    currency: row.currency,
    merchant_acquirer_bin: config.merchant_acquirer_bin,
    merchant_acquirer_id: config.merchant_acquirer_id,
    merchant_name: config.merchant_name,
    merchant_country_code: config.merchant_country_code,
    merchant_category_code: config.merchant_category_code,
    merchant_url: config.merchant_url,
  };
}

const noCardData = () =>
  invalidField('body', '/id', 'The checkout session holds no card number', 'checkout_session_no_card');

async function liveSessionWithCard(
  tx: Executor,
  ctx: RequestContext,
  id: string,
  forUpdate: boolean,
): Promise<CheckoutSessionRow> {
  const row = await repo.findCheckoutSession(tx, ctx.merchantAccountId, id, { forUpdate });
  if (!isLive(row)) throw notFound('checkout session', id);
  if (!row.method || (row.method === 'id' && !row.payment_method_id)) throw noCardData();
  return row;
}

async function openNumber(tx: Executor, ctx: RequestContext, row: CheckoutSessionRow): Promise<string> {
  return ctx.deps.vault.decrypt(
    tx,
    ctx.merchantAccountId,
    { ciphertext: row.number_ciphertext!, keyId: row.number_key_id! },
    numberBinding(row.id),
  );
}

/**
 * The card number a live session holds, for storing it as a payment method. The session keeps
 * its data (its transaction may still use it). 400 when it holds no number of its own.
 */
export async function readCheckoutSessionCard(
  tx: Tx,
  ctx: RequestContext,
  id: string,
): Promise<{ number: string; expiration_date: string; scheme: string }> {
  const row = await liveSessionWithCard(tx, ctx, id, true);
  if (row.method !== 'card' || !row.number_ciphertext) throw noCardData();
  return { number: await openNumber(tx, ctx, row), expiration_date: row.expiration_date!, scheme: row.scheme! };
}

/** What a live session's card is, as `peekCheckoutSessionCard` tells it: no number, no security code. */
export type CheckoutSessionCardFacts =
  | { method: 'id'; paymentMethodId: string }
  | { method: 'card'; bin: string | null; last4: string | null; scheme: string | null; expirationDate: string | null };

/**
 * The card a live session holds, read without using it up, without a lock and without the vault:
 * what an anti-fraud service is told before the payment's database transaction opens (decision
 * 0144). 404 and 400 as `consumeCheckoutSessionCard`.
 */
export async function peekCheckoutSessionCard(
  db: Executor,
  ctx: RequestContext,
  sessionId: string,
): Promise<CheckoutSessionCardFacts> {
  const row = await liveSessionWithCard(db, ctx, sessionId, false);
  if (row.method === 'id') return { method: 'id', paymentMethodId: row.payment_method_id! };
  return { method: 'card', bin: row.bin, last4: row.last4, scheme: row.scheme, expirationDate: row.expiration_date };
}

export type CheckoutSessionCard =
  | { method: 'card'; number: string; expirationDate: string; scheme: string; securityCode: string | null }
  | { method: 'id'; paymentMethodId: string; securityCode: string | null };

/**
 * For the transaction that pays with a session: releases its card data (the number, or the stored
 * method it names) and its security code once, and purges them from the session in `tx`. A stored
 * card is released only while it is still the card of the buyer the session is for (the session may
 * have been bound to another buyer since, or filled before sessions were bound): 404 otherwise.
 */
export async function consumeCheckoutSessionCard(
  tx: Tx,
  ctx: RequestContext,
  sessionId: string,
): Promise<CheckoutSessionCard> {
  const row = await liveSessionWithCard(tx, ctx, sessionId, true);
  if (row.method === 'id') {
    const stored = await findStoredCard(tx, ctx, row.payment_method_id!);
    await requireOwnCard(tx, ctx, row, stored?.buyer_id ?? null, row.payment_method_id!);
  }
  const securityCode = await ctx.deps.vault.takeSecurityCode(tx, ctx.merchantAccountId, owner(sessionId));
  const card: CheckoutSessionCard =
    row.method === 'id'
      ? { method: 'id', paymentMethodId: row.payment_method_id!, securityCode }
      : {
          method: 'card',
          number: await openNumber(tx, ctx, row),
          expirationDate: row.expiration_date!,
          scheme: row.scheme!,
          securityCode,
        };
  await repo.updateCheckoutSession(tx, ctx.merchantAccountId, sessionId, repo.NO_CARD_DATA);
  return card;
}

/** Purges the card data and security codes of expired sessions; returns how many sessions it cleared. */
export async function purgeExpiredCheckoutSessionCards(deps: Deps, now: Date): Promise<number> {
  return inBatchesUntilDone(async () => {
    const cleared = await repo.purgeExpiredCardData(deps.db, now);
    for (const session of cleared)
      await deps.vault.discardSecurityCode(deps.db, session.merchant_account_id, owner(session.id));
    return cleared.length;
  });
}

/**
 * How long an expired session is kept (without card data) before it is deleted. For a day a late
 * call about it still reads as "expired" in the logs and to support, rather than as an id nobody
 * ever issued; after that the row is only clutter in a table every checkout writes to.
 */
export const EXPIRED_SESSION_RETENTION_MS = 24 * 3600 * 1000;

/** Deletes sessions that expired more than the retention period ago, in batches; returns how many. */
export async function deleteExpiredCheckoutSessions(deps: Deps, now: Date): Promise<number> {
  const before = new Date(now.getTime() - EXPIRED_SESSION_RETENTION_MS);
  return inBatchesUntilDone(() => repo.deleteExpiredSessions(deps.db, before));
}
