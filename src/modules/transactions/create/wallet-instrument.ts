import type { RequestContext } from '../../../context.ts';
import type { Executor } from '../../../db/transaction.ts';
import { fieldRefusal } from '../../../errors/app-error.ts';
import type { Instrument } from '../../../connectors/connector.ts';
import { bin, detectSchemes, isExpired, last4 } from '../../../lib/card-schemes.ts';
import { decryptWalletToken } from '../../digital-wallets/wallet-tokens.service.ts';
import type { TransactionPaymentMethodBody } from '../create-transaction.schema.ts';
import type { ResolvedInstrument } from './instrument.ts';

type WalletForm = Extract<TransactionPaymentMethodBody, { method: 'applepay' | 'googlepay' }>;

/**
 * An Apple Pay or Google Pay token, decrypted by the merchant account's wallet keys: a device token
 * (DPAN) goes to the connector as a network token with its cryptogram and ECI; a Google PAN_ONLY
 * card as a card. The decrypted number lives in this object only, for the one authorization: the
 * transaction keeps its last four digits and expiry, never the number or the cryptogram.
 */
export async function walletInstrument(db: Executor, ctx: RequestContext, form: WalletForm): Promise<ResolvedInstrument> {
  const card = await decryptWalletToken(db, ctx, form.method === 'applepay' ? 'apple' : 'google', form.token);
  if (isExpired(card.expirationDate, new Date())) throw fieldRefusal('body', '/payment_method/token', 'The card in the wallet token has expired (its expiration date is in the past)', 'card_expired');
  const scheme = form.card_scheme ?? detectSchemes(card.number).scheme;
  const fpan = card.kind === 'fpan';
  const instrument: Instrument = fpan
    ? { kind: 'card', number: card.number, expirationDate: card.expirationDate, securityCode: null, scheme }
    : { kind: 'network-token', token: card.number, expirationDate: card.expirationDate, cryptogram: card.cryptogram, eci: card.eci, scheme };
  const label = form.card_suffix ?? last4(card.number);
  // A card number (PAN_ONLY) has a fingerprint and a BIN like any card; a device token has neither.
  const fingerprint = fpan ? await ctx.deps.vault.fingerprint(db, ctx.merchantAccountId, card.number) : null;
  return {
    instrument,
    method: form.method,
    instrumentType: form.method,
    paymentMethodId: null,
    snapshot: { method: form.method, mode: form.method, scheme, bin: fpan ? bin(card.number) : null, label, expiration_date: card.expirationDate, fingerprint, card_type: form.card_type ?? null },
    fingerprint,
    bin: fpan ? bin(card.number) : null,
    last4: label,
    checkoutSessionId: null,
    redirectUrl: form.redirect_url ?? null,
    storable: null,
    cardNumber: null,
    ownerBuyerId: null,
    heldCodeOf: null,
  };
}
