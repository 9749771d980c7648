import type { RequestContext } from '../../../context.ts';
import type { Executor, Tx } from '../../../db/transaction.ts';
import { invalidField } from '../../../errors/app-error.ts';
import { bin, detectSchemes, isExpired, last4 } from '../../../lib/card-schemes.ts';
import { consumeCheckoutSessionCard } from '../../checkout-sessions/checkout-sessions.service.ts';
import { lockAndReleaseCard } from '../../payment-methods/payment-methods.service.ts';
import { checkCard } from '../../payment-methods/stored-cards.service.ts';
import type { TransactionPaymentMethodBody } from '../create-transaction.schema.ts';
import { requireWallet } from '../../digital-wallets/wallet-tokens.service.ts';
import type { ResolvedInstrument } from './resolved-instrument.ts';
import { clickToPayTokenInstrument, pazeInstrument, walletInstrument } from './wallet-instrument.ts';

export type { ResolvedInstrument };

function cardSnapshot(
  number: string,
  expirationDate: string,
  scheme: string | null,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    method: 'card',
    mode: 'card',
    scheme,
    bin: bin(number),
    label: last4(number),
    expiration_date: expirationDate,
    ...extra,
  };
}

async function rawCard(
  tx: Executor,
  ctx: RequestContext,
  card: {
    number: string;
    expiration_date: string;
    security_code?: string | null;
    card_type?: string | null;
    external_identifier?: string | null;
  },
  pointer: string,
  checkoutSessionId: string | null = null,
): Promise<ResolvedInstrument> {
  const check = checkCard(card, pointer);
  const fingerprint = await ctx.deps.vault.fingerprint(tx, ctx.merchantAccountId, card.number);
  return {
    instrument: {
      kind: 'card',
      number: card.number,
      expirationDate: card.expiration_date,
      securityCode: card.security_code ?? null,
      scheme: check.scheme,
    },
    method: 'card',
    instrumentType: 'pan',
    paymentMethodId: null,
    snapshot: cardSnapshot(card.number, card.expiration_date, check.scheme, {
      fingerprint,
      card_type: card.card_type ?? null,
      external_identifier: card.external_identifier ?? null,
    }),
    fingerprint,
    bin: bin(card.number),
    last4: last4(card.number),
    checkoutSessionId,
    redirectUrl: null,
    storable: {
      number: card.number,
      expiration_date: card.expiration_date,
      scheme: check.scheme,
      card_type: card.card_type ?? null,
      external_identifier: card.external_identifier ?? null,
    },
    cardNumber: card.number,
    ownerBuyerId: null,
    heldCodeOf: null,
  };
}

async function storedCard(
  tx: Executor,
  ctx: RequestContext,
  id: string,
  securityCode: string | null,
  checkoutSessionId: string | null = null,
  deferHeldCode = false,
): Promise<ResolvedInstrument> {
  const card = await lockAndReleaseCard(tx, ctx, id, { lock: false });
  if (card.expirationDate && isExpired(card.expirationDate, new Date()))
    throw invalidField('body', '/payment_method/id', 'The stored card has expired', 'card_expired');
  // A code held for the stored card is used once: here (or by takeHeldCode), then destroyed. The
  // card says whether one may be held, so the usual payment skips the vault's delete.
  const held =
    deferHeldCode || !card.securityCodeHeld
      ? null
      : await ctx.deps.vault.takeSecurityCode(tx, ctx.merchantAccountId, { type: 'payment-method', id });
  // The stored card's fingerprint was computed when it was stored (one HMAC less per payment).
  const fingerprint = card.fingerprint ?? (await ctx.deps.vault.fingerprint(tx, ctx.merchantAccountId, card.number));
  return {
    instrument: {
      kind: 'card',
      number: card.number,
      expirationDate: card.expirationDate ?? '',
      securityCode: securityCode ?? held,
      scheme: card.scheme,
    },
    method: 'card',
    instrumentType: 'card_token',
    paymentMethodId: id,
    snapshot: cardSnapshot(card.number, card.expirationDate ?? '', card.scheme, { id, fingerprint }),
    fingerprint,
    bin: bin(card.number),
    last4: last4(card.number),
    checkoutSessionId,
    redirectUrl: null,
    storable: null,
    cardNumber: card.number,
    ownerBuyerId: card.buyerId,
    heldCodeOf: deferHeldCode && card.securityCodeHeld ? id : null,
    lacksSchemeTransactionId: card.lacksSchemeTransactionId,
    schemeTransactionId: card.schemeTransactionId,
  };
}

function networkToken(form: Extract<TransactionPaymentMethodBody, { method: 'network-token' }>): ResolvedInstrument {
  if (isExpired(form.expiration_date, new Date()))
    throw invalidField(
      'body',
      '/payment_method/expiration_date',
      'The network token has expired: expiration_date is in the past',
      'card_expired',
    );
  const scheme = form.card_scheme ?? detectSchemes(form.token).scheme;
  return {
    instrument: {
      kind: 'network-token',
      token: form.token,
      expirationDate: form.expiration_date,
      cryptogram: form.cryptogram ?? null,
      eci: form.eci ?? null,
      scheme,
    },
    method: 'network-token',
    instrumentType: 'network_token',
    paymentMethodId: null,
    snapshot: {
      method: 'network-token',
      mode: 'card',
      scheme,
      bin: bin(form.token),
      label: form.card_suffix ?? last4(form.token),
      expiration_date: form.expiration_date,
    },
    fingerprint: null,
    bin: bin(form.token),
    last4: last4(form.token),
    checkoutSessionId: null,
    redirectUrl: null,
    storable: null,
    cardNumber: null,
    ownerBuyerId: null,
    heldCodeOf: null,
  };
}

/**
 * Resolves `payment_method` of `POST /transactions`. `tx` may be the pool (no transaction) for a
 * card or a stored card, which only read here; with `deferHeldCode` a stored card's held security
 * code is left for `takeHeldCode`, so a request refused before it is recorded does not destroy it.
 */
export async function resolveInstrument(
  tx: Executor,
  ctx: RequestContext,
  form: TransactionPaymentMethodBody,
  options: { deferHeldCode?: boolean } = {},
): Promise<ResolvedInstrument> {
  const resolved = await resolveForm(tx, ctx, form, options);
  // A card's redirect_url is where the buyer returns after a 3DS challenge page: the sandbox's
  // (sandbox-challenge.ts) or a provider's (connectors that redirect).
  return resolved.redirectUrl === null && form.redirect_url
    ? { ...resolved, redirectUrl: form.redirect_url }
    : resolved;
}

async function resolveForm(
  tx: Executor,
  ctx: RequestContext,
  form: TransactionPaymentMethodBody,
  options: { deferHeldCode?: boolean },
): Promise<ResolvedInstrument> {
  switch (form.method) {
    case 'card':
      return rawCard(tx, ctx, form, '/payment_method');
    case 'id':
      return storedCard(tx, ctx, form.id, form.security_code ?? null, null, options.deferHeldCode ?? false);
    case 'network-token':
      return networkToken(form);
    case 'applepay':
    case 'googlepay':
      return walletInstrument(tx, ctx, form);
    case 'paze':
      return pazeInstrument(tx, ctx, form);
    case 'click-to-pay': {
      await requireWallet(tx, ctx, 'click-to-pay', '/payment_method/method');
      if (!('number' in form)) return clickToPayTokenInstrument(form);
      // A Click to Pay card number: a card like any other (BIN, fingerprint), paid as click-to-pay.
      const card = await rawCard(tx, ctx, form, '/payment_method');
      return {
        ...card,
        method: 'click-to-pay',
        snapshot: { ...card.snapshot, method: 'click-to-pay', mode: 'click-to-pay' },
      };
    }
    case 'googlepay_pan_only': {
      // A Google Pay card the merchant decrypted: a card like any other, paid as googlepay.
      const card = await rawCard(tx, ctx, form, '/payment_method');
      return { ...card, method: 'googlepay', snapshot: { ...card.snapshot, method: 'googlepay', mode: 'googlepay' } };
    }
    case 'checkout-session': {
      // The session's card data is used up: only inside the caller's database transaction.
      if (!tx.isTransaction)
        throw new Error('a checkout session payment method is resolved inside a database transaction');
      const card = await consumeCheckoutSessionCard(tx as Tx, ctx, form.id);
      if (card.method === 'id') return storedCard(tx, ctx, card.paymentMethodId, card.securityCode, form.id);
      return rawCard(
        tx,
        ctx,
        {
          number: card.number,
          expiration_date: card.expirationDate,
          security_code: card.securityCode,
          external_identifier: form.external_identifier,
        },
        '/payment_method',
        form.id,
      );
    }
    default:
      return redirect(form);
  }
}

/** A redirect method: no card data; the buyer approves the payment on the provider's page. */
function redirect(form: {
  method: string;
  country: string;
  currency: string;
  redirect_url: string;
  external_identifier?: string | null;
}): ResolvedInstrument {
  return {
    instrument: {
      kind: 'redirect',
      method: form.method,
      redirectUrl: form.redirect_url,
      country: form.country,
      currency: form.currency,
    },
    method: form.method,
    instrumentType: 'redirect',
    paymentMethodId: null,
    snapshot: {
      method: form.method,
      mode: 'redirect',
      country: form.country,
      currency: form.currency,
      external_identifier: form.external_identifier ?? null,
    },
    fingerprint: null,
    bin: null,
    last4: null,
    checkoutSessionId: null,
    redirectUrl: form.redirect_url,
    storable: null,
    cardNumber: null,
    ownerBuyerId: null,
    heldCodeOf: null,
  };
}

/** Takes a stored card's held security code left by `deferHeldCode` (destroying it) into the instrument. */
export async function takeHeldCode(db: Executor, ctx: RequestContext, resolved: ResolvedInstrument): Promise<void> {
  if (!resolved.heldCodeOf) return;
  const held = await ctx.deps.vault.takeSecurityCode(db, ctx.merchantAccountId, {
    type: 'payment-method',
    id: resolved.heldCodeOf,
  });
  resolved.heldCodeOf = null;
  if (resolved.instrument.kind === 'card' && !resolved.instrument.securityCode) resolved.instrument.securityCode = held;
}
