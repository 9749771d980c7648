import { randomBytes } from 'node:crypto';
import { emitEvent } from '../events/events.service.ts';
import { withRequestTransaction, type RequestContext } from '../../context.ts';
import type { NetworkTokenRow } from '../../db/schema.ts';
import type { Executor, Tx } from '../../db/transaction.ts';
import { AppError, duplicateRecord, forbidden, invalidField, notFound } from '../../errors/app-error.ts';
import { refuseInProduction } from '../../errors/sandbox-only.ts';
import { isExpired, last4 } from '../../lib/card-schemes.ts';
import { uuidv7 } from '../../lib/ids.ts';
import type { Binding } from '../../vault/vault.ts';
import { recordAudit } from '../audit-logs/audit-logs.service.ts';
import { assertPaymentMethodExists, lockAndReleaseCard } from '../payment-methods/payment-methods.service.ts';
import { assertTransition, assertUsable, type NetworkTokenStatus } from './network-token-status.ts';
import * as repo from './network-tokens.repo.ts';
import {
  toNetworkTokenResource,
  type Cryptogram,
  type CryptogramCreateBody,
  type NetworkToken,
  type NetworkTokenCreateBody,
} from './network-tokens.schemas.ts';
import { createCryptogram, provisionToken, UnsupportedSchemeError } from './token-service.ts';

const binding = (id: string): Binding => ({ table: 'network_tokens', column: 'token', rowId: id });
const auditName = (row: Pick<NetworkTokenRow, 'token_last4'>) => `network token ${row.token_last4}`;

/** The token value of a row, from the vault; null once destroyed. */
async function tokenOf(db: Executor, ctx: RequestContext, row: NetworkTokenRow): Promise<string | null> {
  if (!row.token_ciphertext || !row.token_key_id) return null;
  return ctx.deps.vault.decrypt(
    db,
    ctx.merchantAccountId,
    { ciphertext: row.token_ciphertext, keyId: row.token_key_id },
    binding(row.id),
  );
}

/** What production answers for the token service's operations: it is the sandbox's simulation (token-service.ts). */
const NO_TOKEN_SERVICE = [
  'The network token service',
  "no network token service is configured: tokens from a provider that offers network tokenization (Stripe's or Adyen's) are not integrated yet",
] as const;

/**
 * The spec: provisioning through the API is not enabled by default in production. Enabled or not,
 * the only token service is the sandbox's simulation, so production refuses it (docs/production.md).
 */
function assertProvisioningEnabled(ctx: RequestContext): void {
  const { environment, networkTokensApiProvisioning } = ctx.deps.config;
  if (environment === 'production' && !networkTokensApiProvisioning) {
    throw forbidden(
      'Provisioning network tokens through the API is not enabled in production (set NETWORK_TOKENS_API_PROVISIONING=true to enable it)',
    );
  }
  refuseInProduction(ctx.deps.config, ...NO_TOKEN_SERVICE);
}

function provision(card: { number: string; expirationDate: string | null }) {
  if (card.expirationDate && isExpired(card.expirationDate, new Date())) {
    throw new AppError('bad_request', 'The card has expired: a network token cannot be provisioned for it');
  }
  try {
    // The seed is random: a token reveals nothing about the card, and tests can still see it differ.
    return provisionToken({
      pan: card.number,
      expirationDate: card.expirationDate,
      seed: randomBytes(16),
      now: new Date(),
    });
  } catch (error) {
    if (error instanceof UnsupportedSchemeError)
      throw invalidField('path', '/payment_method_id', error.message, 'network_token_unsupported_scheme');
    throw error;
  }
}

/**
 * Provisions a token for a stored card. One live (not deleted) token per payment method: a second
 * request answers 409 with the live token's id. The security code is not kept (the simulated
 * service does no cardholder verification).
 */
export async function createNetworkToken(
  ctx: RequestContext,
  paymentMethodId: string,
  _body: NetworkTokenCreateBody,
): Promise<NetworkToken> {
  assertProvisioningEnabled(ctx);
  const merchant = ctx.merchantAccountId;
  return withRequestTransaction(ctx, async (tx) => {
    // Locking the card serializes concurrent provisioning for it; the unique index is the backstop.
    const card = await lockAndReleaseCard(tx, ctx, paymentMethodId);
    const live = await repo.findLiveNetworkToken(tx, merchant, paymentMethodId);
    if (live)
      throw duplicateRecord(
        live.id,
        `The payment method already has a ${live.status} network token; delete it before provisioning another`,
      );
    const issued = provision(card);
    const id = uuidv7();
    const sealed = await ctx.deps.vault.encrypt(tx, merchant, issued.token, binding(id));
    const row = await repo.insertNetworkToken(tx, {
      merchant_account_id: merchant,
      id,
      payment_method_id: paymentMethodId,
      status: 'active',
      token_ciphertext: sealed.ciphertext,
      token_key_id: sealed.keyId,
      token_last4: last4(issued.token),
      expiration_date: issued.expirationDate,
    });
    await recordAudit(tx, ctx, 'created', { type: 'network-token', id, name: auditName(row) });
    await emitNetworkToken(tx, ctx, row, 'network_token.created');
    return toNetworkTokenResource(row, issued.token);
  });
}

export async function listNetworkTokens(
  ctx: RequestContext,
  paymentMethodId: string,
): Promise<{ items: NetworkToken[] }> {
  const db = ctx.deps.db;
  await assertPaymentMethodExists(db, ctx, paymentMethodId);
  const rows = await repo.listNetworkTokens(db, ctx.merchantAccountId, paymentMethodId);
  const items: NetworkToken[] = [];
  for (const row of rows) items.push(toNetworkTokenResource(row, await tokenOf(db, ctx, row)));
  return { items };
}

async function lockToken(tx: Tx, ctx: RequestContext, paymentMethodId: string, id: string): Promise<NetworkTokenRow> {
  const row = await repo.findNetworkToken(tx, ctx.merchantAccountId, paymentMethodId, id, { forUpdate: true });
  if (!row) throw notFound('network token', id);
  return row;
}

/** Webhook event of a token change. The token number is card-equivalent data: events carry its last 4 only. */
async function emitNetworkToken(tx: Tx, ctx: RequestContext, row: NetworkTokenRow, kind: string): Promise<void> {
  await emitEvent(tx, ctx.deps, {
    merchantAccountId: ctx.merchantAccountId,
    kind,
    resourceType: 'network-token',
    resourceId: row.id,
    payload: toNetworkTokenResource(row, `••••${row.token_last4}`),
  });
}

/** Suspends (`active → suspended`) or resumes (`suspended → active`) a token. */
export async function changeNetworkTokenStatus(
  ctx: RequestContext,
  paymentMethodId: string,
  id: string,
  to: Extract<NetworkTokenStatus, 'active' | 'suspended'>,
): Promise<NetworkToken> {
  return withRequestTransaction(ctx, async (tx) => {
    const row = await lockToken(tx, ctx, paymentMethodId, id);
    assertTransition(row.status, to);
    const updated = await repo.updateNetworkToken(tx, ctx.merchantAccountId, id, { status: to });
    await recordAudit(tx, ctx, 'updated', { type: 'network-token', id, name: auditName(row) });
    await emitNetworkToken(tx, ctx, updated, 'network_token.updated');
    return toNetworkTokenResource(updated, await tokenOf(tx, ctx, updated));
  });
}

/** Marks the token deleted and destroys its value (the ciphertext goes; last 4 and dates stay). */
export async function deleteNetworkToken(ctx: RequestContext, paymentMethodId: string, id: string): Promise<void> {
  await withRequestTransaction(ctx, async (tx) => {
    const row = await lockToken(tx, ctx, paymentMethodId, id);
    assertTransition(row.status, 'deleted');
    const deleted = await repo.updateNetworkToken(tx, ctx.merchantAccountId, id, {
      status: 'deleted',
      token_ciphertext: null,
      token_key_id: null,
    });
    await recordAudit(tx, ctx, 'deleted', { type: 'network-token', id, name: auditName(row) });
    await emitNetworkToken(tx, ctx, deleted, 'network_token.deleted');
  });
}

/** A one-time cryptogram for one transaction; only an active token gets one. Nothing is stored. */
export async function createNetworkTokenCryptogram(
  ctx: RequestContext,
  paymentMethodId: string,
  id: string,
  body: CryptogramCreateBody,
): Promise<Cryptogram> {
  // A token made in the sandbox gets no simulated cryptogram in production either.
  refuseInProduction(ctx.deps.config, ...NO_TOKEN_SERVICE);
  return withRequestTransaction(ctx, async (tx) => {
    // Locked so a concurrent suspend or delete either waits for this or is seen by it.
    const row = await lockToken(tx, ctx, paymentMethodId, id);
    assertUsable(row.status);
    const token = await tokenOf(tx, ctx, row);
    if (!token) throw new Error(`network token ${id} is ${row.status} but has no value`);
    const issued = createCryptogram({ token, nonce: randomBytes(16), merchantInitiated: body.merchant_initiated });
    return { type: 'network-token-cryptogram', cryptogram: issued.cryptogram };
  });
}
