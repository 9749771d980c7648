import type { RequestContext } from '../../../context.ts';
import type { Executor } from '../../../db/transaction.ts';
import { fieldRefusal } from '../../../errors/app-error.ts';
import type { Instrument } from '../../../connectors/connector.ts';
import { bin, detectSchemes, isExpired, last4 } from '../../../lib/card-schemes.ts';
import { decryptPazeWalletToken, decryptWalletToken } from '../../digital-wallets/wallet-tokens.service.ts';
import type { WalletCard } from '../../../wallets/wallet-card.ts';
import type { TransactionPaymentMethodBody } from '../create-transaction.schema.ts';
import type { ResolvedInstrument } from './instrument.ts';

type WalletForm = Extract<TransactionPaymentMethodBody, { method: 'applepay' | 'googlepay' }>;
type PazeForm = Extract<TransactionPaymentMethodBody, { method: 'paze' }>;
type ClickToPayTokenForm = Extract<TransactionPaymentMethodBody, { method: 'click-to-pay'; token: string }>;

const TOKEN = '/payment_method/token';

/** A device token (DPAN) with its cryptogram: a network token for the connector, with no BIN or fingerprint of its own. */
function deviceToken(token: { number: string; expirationDate: string; cryptogram: string | null; eci: string | null; scheme: string | null }, meta: { method: string; mode: string; instrumentType: ResolvedInstrument['instrumentType']; label: string; redirectUrl: string | null; cardType?: string | null }): ResolvedInstrument {
  return {
    instrument: { kind: 'network-token', token: token.number, expirationDate: token.expirationDate, cryptogram: token.cryptogram, eci: token.eci, scheme: token.scheme },
    method: meta.method,
    instrumentType: meta.instrumentType,
    paymentMethodId: null,
    snapshot: { method: meta.method, mode: meta.mode, scheme: token.scheme, bin: null, label: meta.label, expiration_date: token.expirationDate, fingerprint: null, card_type: meta.cardType ?? null },
    fingerprint: null,
    bin: null,
    last4: meta.label,
    checkoutSessionId: null,
    redirectUrl: meta.redirectUrl,
    storable: null,
    cardNumber: null,
    ownerBuyerId: null,
    heldCodeOf: null,
  };
}

const checkUnexpired = (card: WalletCard) => {
  if (isExpired(card.expirationDate, new Date())) throw fieldRefusal('body', TOKEN, 'The card in the wallet token has expired (its expiration date is in the past)', 'card_expired');
};

/**
 * An Apple Pay or Google Pay token, decrypted by the merchant account's wallet keys: a device token
 * (DPAN) goes to the connector as a network token with its cryptogram and ECI; a Google PAN_ONLY
 * card as a card. The decrypted number lives in this object only, for the one authorization: the
 * transaction keeps its last four digits and expiry, never the number or the cryptogram.
 */
export async function walletInstrument(db: Executor, ctx: RequestContext, form: WalletForm): Promise<ResolvedInstrument> {
  const card = await decryptWalletToken(db, ctx, form.method === 'applepay' ? 'apple' : 'google', form.token);
  checkUnexpired(card);
  const scheme = form.card_scheme ?? detectSchemes(card.number).scheme;
  const label = form.card_suffix ?? last4(card.number);
  const meta = { method: form.method, mode: form.method, instrumentType: form.method, label, redirectUrl: form.redirect_url ?? null, cardType: form.card_type ?? null };
  if (card.kind === 'dpan') return deviceToken({ ...card, scheme }, meta);
  // A card number (PAN_ONLY) has a fingerprint and a BIN like any card.
  const instrument: Instrument = { kind: 'card', number: card.number, expirationDate: card.expirationDate, securityCode: null, scheme };
  const fingerprint = await ctx.deps.vault.fingerprint(db, ctx.merchantAccountId, card.number);
  const resolved = deviceToken({ ...card, scheme }, meta);
  return { ...resolved, instrument, fingerprint, bin: bin(card.number), snapshot: { ...resolved.snapshot, bin: bin(card.number), fingerprint } };
}

/**
 * A Paze completeResponse, verified and decrypted with the Paze wallet's key: its network token,
 * cryptogram and ECI go to the connector as a network token (`instrument_type` network_token).
 * Paze is no payment option mode, so the payment method's mode is `card`.
 */
export async function pazeInstrument(db: Executor, ctx: RequestContext, form: PazeForm): Promise<ResolvedInstrument> {
  const card = await decryptPazeWalletToken(db, ctx, form.token, form.checkout_token ?? null);
  checkUnexpired(card);
  const scheme = card.scheme ?? detectSchemes(card.number).scheme;
  return deviceToken({ ...card, scheme }, { method: 'paze', mode: 'card', instrumentType: 'network_token', label: last4(card.number), redirectUrl: form.redirect_url ?? null });
}

/** A Click to Pay device token with its cryptogram (the merchant's Click to Pay integration decrypted it). */
export function clickToPayTokenInstrument(form: ClickToPayTokenForm): ResolvedInstrument {
  if (isExpired(form.expiration_date, new Date())) throw fieldRefusal('body', '/payment_method/expiration_date', 'The Click to Pay token has expired: expiration_date is in the past', 'card_expired');
  const token = { number: form.token, expirationDate: form.expiration_date, cryptogram: form.cryptogram, eci: null, scheme: detectSchemes(form.token).scheme };
  return deviceToken(token, { method: 'click-to-pay', mode: 'click-to-pay', instrumentType: 'network_token', label: last4(form.token), redirectUrl: form.redirect_url ?? null });
}
