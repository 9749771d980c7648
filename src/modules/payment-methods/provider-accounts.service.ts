import type { Deps, RequestContext } from '../../context.ts';
import type { Executor, Tx } from '../../db/transaction.ts';
import { AppError, notFound } from '../../errors/app-error.ts';
import { uuidv7 } from '../../lib/ids.ts';
import { maskEmail } from '../buyers/pii-mask.ts';
import { emitEvent } from '../events/events.service.ts';
import { toPaymentMethodResource } from './payment-methods.schemas.ts';
import * as repo from './payment-methods.repo.ts';

/**
 * Stored payment methods that are a buyer's account at a provider, not a card (migration 0060): a
 * PayPal account stored by a PayPal payment with `store: true`. The row keeps the provider's id of
 * the account (PayPal's payer id, what a payout sends to) and a label: the account's e-mail,
 * masked before it is written (the full address is never kept, so no response can show it).
 */

/**
 * For the transaction engine, in the transaction that records the approved payment: stores the
 * buyer's account at the provider as a payment method of the payment's method, and returns it.
 */
export async function storeProviderAccount(
  tx: Tx,
  deps: Deps,
  merchantAccountId: string,
  account: { method: string; id: string; email: string | null; buyerId: string | null },
): Promise<{ id: string; label: string | null }> {
  const row = await repo.insertPaymentMethod(tx, {
    merchant_account_id: merchantAccountId,
    id: uuidv7(),
    method: account.method,
    status: 'succeeded',
    buyer_id: account.buyerId,
    external_identifier: null,
    scheme: null,
    card_type: null,
    bin: null,
    last4: null,
    expiration_date: null,
    fingerprint: null,
    number_ciphertext: null,
    number_key_id: null,
    provider_account_id: account.id,
    label: account.email ? maskEmail(account.email) : null,
  });
  await emitEvent(tx, deps, {
    merchantAccountId,
    kind: 'payment_method.created',
    resourceType: 'payment-method',
    resourceId: row.id,
    payload: toPaymentMethodResource(row),
  });
  return { id: row.id, label: row.label };
}

/** A stored method as a payout reads it: a card (released by `lockAndReleaseCard`) or an account at a provider. */
export type StoredDestination =
  | { kind: 'card' }
  | {
      kind: 'provider-account';
      id: string;
      method: string;
      accountId: string;
      label: string | null;
      buyerId: string | null;
    };

/**
 * For payouts: what kind of stored method `id` is. 404 when it does not exist in this merchant
 * account; 400 when it is neither a card nor a usable account at a provider.
 */
export async function storedDestinationOf(db: Executor, ctx: RequestContext, id: string): Promise<StoredDestination> {
  const row = await repo.findPaymentMethod(db, ctx.merchantAccountId, id);
  if (!row) throw notFound('payment method', id);
  if (row.method === 'card') return { kind: 'card' };
  if (!row.provider_account_id || row.status !== 'succeeded')
    throw new AppError(
      'bad_request',
      `The payment method is a stored ${row.method} method without an account at its provider: it cannot receive payouts`,
    );
  return {
    kind: 'provider-account',
    id: row.id,
    method: row.method,
    accountId: row.provider_account_id,
    label: row.label,
    buyerId: row.buyer_id,
  };
}

/** For payout reconciliation: the provider's id of a stored account (a payout replayed by its idempotency key needs it). */
export async function providerAccountIdOf(db: Executor, merchantAccountId: string, id: string): Promise<string | null> {
  return (await repo.findPaymentMethod(db, merchantAccountId, id))?.provider_account_id ?? null;
}
