import type { RequestContext } from '../../context.ts';
import type { PayoutInstrument } from '../../connectors/connector.ts';
import type { Executor } from '../../db/transaction.ts';
import { fieldRefusal, invalidField } from '../../errors/app-error.ts';
import { bin, isExpired, last4 } from '../../lib/card-schemes.ts';
import { findBuyerRow } from '../buyers/buyer-snapshots.service.ts';
import { lockAndReleaseCard } from '../payment-methods/payment-methods.service.ts';
import { storedDestinationOf } from '../payment-methods/provider-accounts.service.ts';
import { checkCard } from '../payment-methods/stored-cards.service.ts';
import type { CreatePayoutBody, PayoutPaymentMethodBody, PayoutStoredCardForm } from './payouts.schemas.ts';

/**
 * Where a payout sends the funds and for whom. The card number is released into memory for the one
 * connector call and is never written anywhere but the vault: a raw card is not stored.
 */
export interface Destination {
  instrument: PayoutInstrument;
  paymentMethodId: string | null;
  /** The payout's `payment_method` object (no full number). */
  snapshot: Record<string, unknown>;
  /** The buyer a stored card belongs to. */
  ownerBuyerId: string | null;
}

const isStored = (form: PayoutPaymentMethodBody): form is PayoutStoredCardForm => 'id' in form;

/**
 * A connector pays out to destinations of its definition's method only: cards through card
 * connectors, PayPal accounts (stored by a PayPal payment) through `paypal-paypal`. Refused before
 * any card is released, with what to send instead.
 */
function checkMethod(destinationMethod: string, connector: { id: string; method: string }): void {
  if (destinationMethod === connector.method) return;
  const accepted =
    connector.method === 'card'
      ? 'cards only: send a card ({"method": "card", ...}) or a stored card ({"method": "id", "id": ...})'
      : `${connector.method} accounts only: send {"method": "id", "id": ...} with a stored payment method of method ${connector.method} (one stored by a ${connector.method} payment with store: true)`;
  throw invalidField(
    'body',
    '/payment_method',
    `The payment method is a ${destinationMethod} destination, and the payment service's connector (${connector.id}) pays out to ${accepted}`,
    'payouts_not_supported',
  );
}

export async function resolveDestination(
  db: Executor,
  ctx: RequestContext,
  form: PayoutPaymentMethodBody,
  connector: { id: string; method: string },
): Promise<Destination> {
  if (isStored(form)) {
    const stored = await storedDestinationOf(db, ctx, form.id);
    checkMethod(stored.kind === 'card' ? 'card' : stored.method, connector);
    if (stored.kind === 'provider-account')
      return {
        instrument: { kind: 'provider-account', method: stored.method, accountId: stored.accountId },
        paymentMethodId: stored.id,
        snapshot: { id: stored.id, method: stored.method, mode: 'redirect', label: stored.label },
        ownerBuyerId: stored.buyerId,
      };
    // 404 for a card of another merchant account, 400 for a payment method that is not a usable card.
    const card = await lockAndReleaseCard(db, ctx, form.id, { lock: false });
    if (card.expirationDate && isExpired(card.expirationDate, new Date()))
      throw invalidField('body', '/payment_method/id', 'The stored card has expired', 'card_expired');
    const fingerprint = card.fingerprint ?? (await ctx.deps.vault.fingerprint(db, ctx.merchantAccountId, card.number));
    return {
      instrument: { kind: 'card', number: card.number, expirationDate: card.expirationDate ?? '', scheme: card.scheme },
      paymentMethodId: card.id,
      snapshot: {
        id: card.id,
        method: 'card',
        mode: 'card',
        scheme: card.scheme,
        bin: bin(card.number),
        label: last4(card.number),
        expiration_date: card.expirationDate,
        fingerprint,
      },
      ownerBuyerId: card.buyerId,
    };
  }
  checkMethod('card', connector);
  const check = checkCard(form, '/payment_method');
  const scheme = form.card_scheme ?? check.scheme;
  const fingerprint = await ctx.deps.vault.fingerprint(db, ctx.merchantAccountId, form.number);
  return {
    instrument: { kind: 'card', number: form.number, expirationDate: form.expiration_date, scheme },
    paymentMethodId: null,
    snapshot: {
      method: 'card',
      mode: 'card',
      scheme,
      bin: bin(form.number),
      label: last4(form.number),
      expiration_date: form.expiration_date,
      fingerprint,
      external_identifier: form.external_identifier ?? null,
    },
    ownerBuyerId: null,
  };
}

/** The buyer fields of the body; only one may be given. */
export function checkBuyerFields(body: CreatePayoutBody): void {
  const named = (['buyer_id', 'buyer', 'buyer_external_identifier'] as const).filter(
    (key) => body[key] !== undefined && body[key] !== null,
  );
  if (named.length > 1)
    throw invalidField(
      'body',
      `/${named[1]}`,
      `Send only one of buyer_id, buyer and buyer_external_identifier (this request sends ${named.join(', ')})`,
      'buyer_conflict',
    );
}

const notTheOwner = (pointer: string) =>
  fieldRefusal(
    'body',
    pointer,
    'Must be the buyer of the stored payment method',
    'value_error',
    'The stored payment method belongs to another buyer than the one this payout names',
  );

/** The payout's buyer: the stored buyer named (who must own a stored card), a guest buyer, or the stored card's owner. */
export async function resolveBuyer(
  db: Executor,
  ctx: RequestContext,
  body: CreatePayoutBody,
  owner: string | null,
): Promise<{ buyerId: string | null; snapshot: Record<string, unknown> | null }> {
  let buyerId = body.buyer_id ?? null;
  const external = body.buyer_external_identifier ?? null;
  if (body.buyer) {
    if (owner) throw notTheOwner('/buyer');
    const { shipping_details: _shipping, ...guest } = body.buyer;
    return { buyerId: null, snapshot: { id: null, ...guest } };
  }
  if (!buyerId && !external) buyerId = owner;
  if (!buyerId && !external) return { buyerId: null, snapshot: null };
  const row = await findBuyerRow(db, ctx, buyerId ? { id: buyerId } : { externalIdentifier: external! });
  if (owner && owner !== row.id) throw notTheOwner(body.buyer_id ? '/buyer_id' : '/buyer_external_identifier');
  return {
    buyerId: row.id,
    snapshot: {
      id: row.id,
      display_name: row.display_name,
      external_identifier: row.external_identifier,
      account_number: row.account_number,
      billing_details: row.billing_details,
    },
  };
}
