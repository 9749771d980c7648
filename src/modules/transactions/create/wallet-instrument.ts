import type { RequestContext } from '../../../context.ts';
import type { Executor } from '../../../db/transaction.ts';
import { fieldRefusal } from '../../../errors/app-error.ts';
import type { Instrument } from '../../../connectors/connector.ts';
import { bin, detectSchemes, isExpired, last4 } from '../../../lib/card-schemes.ts';
import { recordWalletTokenUse } from '../../digital-wallets/wallet-token-uses.service.ts';
import { decryptPazeWalletToken, resolveWalletToken } from '../../digital-wallets/wallet-tokens.service.ts';
import { approvedAmountProblem, type EncryptedWalletToken, type WalletProvider } from '../../../wallets/token-use.ts';
import type { WalletCard } from '../../../wallets/wallet-card.ts';
import type { TransactionPaymentMethodBody } from '../create-transaction.schema.ts';
import type { ResolvedInstrument, WalletTokenCheck } from './resolved-instrument.ts';

type WalletForm = Extract<TransactionPaymentMethodBody, { method: 'applepay' | 'googlepay' }>;
type PazeForm = Extract<TransactionPaymentMethodBody, { method: 'paze' }>;
type ClickToPayTokenForm = Extract<TransactionPaymentMethodBody, { method: 'click-to-pay'; token: string }>;
const POINTER = '/payment_method/token';

const base = {
  paymentMethodId: null,
  checkoutSessionId: null,
  storable: null,
  cardNumber: null,
  ownerBuyerId: null,
  heldCodeOf: null,
};

/** A device token (DPAN) with its cryptogram: a network token for the connector, with no BIN or fingerprint of its own. */
function deviceToken(
  token: {
    number: string;
    expirationDate: string;
    cryptogram: string | null;
    eci: string | null;
    scheme: string | null;
  },
  meta: {
    method: string;
    mode: string;
    instrumentType: ResolvedInstrument['instrumentType'];
    label: string;
    redirectUrl: string | null;
    cardType?: string | null;
  },
): ResolvedInstrument {
  return {
    ...base,
    instrument: {
      kind: 'network-token',
      token: token.number,
      expirationDate: token.expirationDate,
      cryptogram: token.cryptogram,
      eci: token.eci,
      scheme: token.scheme,
    },
    method: meta.method,
    instrumentType: meta.instrumentType,
    snapshot: {
      method: meta.method,
      mode: meta.mode,
      scheme: token.scheme,
      bin: null,
      label: meta.label,
      expiration_date: token.expirationDate,
      fingerprint: null,
      card_type: meta.cardType ?? null,
    },
    fingerprint: null,
    bin: null,
    last4: meta.label,
    redirectUrl: meta.redirectUrl,
  };
}

const checkUnexpired = (card: WalletCard) => {
  if (isExpired(card.expirationDate, new Date()))
    throw fieldRefusal(
      'body',
      POINTER,
      'The card in the wallet token has expired (its expiration date is in the past)',
      'card_expired',
    );
};

/**
 * A token decrypted here: a device token (DPAN) goes to the connector as a network token with its
 * cryptogram and ECI; a Google PAN_ONLY card as a card. The decrypted number lives in this object
 * only, for the one authorization: the transaction keeps its last four digits and expiry, never the
 * number or the cryptogram.
 */
async function decrypted(
  db: Executor,
  ctx: RequestContext,
  form: WalletForm,
  provider: WalletProvider,
  card: WalletCard,
): Promise<ResolvedInstrument> {
  checkUnexpired(card);
  if (!card.tokenId || !card.usableUntil)
    throw new Error('a decrypted wallet token has no id or life: the replay guard needs both');
  const scheme = form.card_scheme ?? detectSchemes(card.number).scheme;
  const label = form.card_suffix ?? last4(card.number);
  const meta = {
    method: form.method,
    mode: form.method,
    instrumentType: form.method,
    label,
    redirectUrl: form.redirect_url ?? null,
    cardType: form.card_type ?? null,
  };
  const walletToken: WalletTokenCheck = {
    use: { provider, tokenId: card.tokenId, usableUntil: card.usableUntil },
    approved: provider === 'apple' ? { amount: card.amount, currencyCode: card.currencyCode ?? null } : null,
  };
  const resolved = { ...deviceToken({ ...card, scheme }, meta), walletToken };
  if (card.kind === 'dpan') return resolved;
  // A card number (PAN_ONLY) has a fingerprint and a BIN like any card.
  const instrument: Instrument = {
    kind: 'card',
    number: card.number,
    expirationDate: card.expirationDate,
    securityCode: null,
    scheme,
  };
  const fingerprint = await ctx.deps.vault.fingerprint(db, ctx.merchantAccountId, card.number);
  return {
    ...resolved,
    instrument,
    fingerprint,
    bin: bin(card.number),
    snapshot: { ...resolved.snapshot, bin: bin(card.number), fingerprint },
  };
}

/**
 * A Paze completeResponse, verified and decrypted with the Paze wallet's key: its network token,
 * cryptogram and ECI go to the connector as a network token (`instrument_type` network_token).
 * Paze is no payment option mode, so the payment method's mode is `card`. Its payloadId pays once.
 */
export async function pazeInstrument(db: Executor, ctx: RequestContext, form: PazeForm): Promise<ResolvedInstrument> {
  const card = await decryptPazeWalletToken(db, ctx, form.token, form.checkout_token ?? null);
  checkUnexpired(card);
  const scheme = card.scheme ?? detectSchemes(card.number).scheme;
  const resolved = deviceToken(
    { ...card, scheme },
    {
      method: 'paze',
      mode: 'card',
      instrumentType: 'network_token',
      label: last4(card.number),
      redirectUrl: form.redirect_url ?? null,
    },
  );
  if (!card.tokenId || !card.usableUntil)
    throw fieldRefusal(
      'body',
      POINTER,
      'The Paze completeResponse has no payloadId or jti, so it cannot be told apart from a replay',
      'wallet_token_malformed',
    );
  return {
    ...resolved,
    walletToken: { use: { provider: 'paze', tokenId: card.tokenId, usableUntil: card.usableUntil }, approved: null },
  };
}

/** A Click to Pay device token with its cryptogram (the merchant's Click to Pay integration decrypted it). */
export function clickToPayTokenInstrument(form: ClickToPayTokenForm): ResolvedInstrument {
  if (isExpired(form.expiration_date, new Date()))
    throw fieldRefusal(
      'body',
      '/payment_method/expiration_date',
      'The Click to Pay token has expired: expiration_date is in the past',
      'card_expired',
    );
  const token = {
    number: form.token,
    expirationDate: form.expiration_date,
    cryptogram: form.cryptogram,
    eci: null,
    scheme: detectSchemes(form.token).scheme,
  };
  return deviceToken(token, {
    method: 'click-to-pay',
    mode: 'click-to-pay',
    instrumentType: 'network_token',
    label: last4(form.token),
    redirectUrl: form.redirect_url ?? null,
  });
}

/**
 * A token passed on encrypted to the payment service (the wallet's `token_decryption` is
 * `payment-service`): nothing of the card is known here, so the transaction keeps the request's
 * `card_suffix` and `card_scheme` only; routing takes only services whose connector accepts it.
 */
function encrypted(form: WalletForm, provider: WalletProvider, token: EncryptedWalletToken): ResolvedInstrument {
  const scheme = form.card_scheme ?? null;
  const label = form.card_suffix ?? null;
  return {
    ...base,
    instrument: { kind: 'wallet-token', provider, token: token.token, scheme },
    method: form.method,
    instrumentType: form.method,
    snapshot: {
      method: form.method,
      mode: form.method,
      scheme,
      bin: null,
      label,
      expiration_date: null,
      fingerprint: null,
      card_type: form.card_type ?? null,
    },
    fingerprint: null,
    bin: null,
    last4: label,
    redirectUrl: form.redirect_url ?? null,
    walletToken: { use: { provider, tokenId: token.tokenId, usableUntil: token.usableUntil }, approved: null },
  };
}

/** An Apple Pay or Google Pay token, as the merchant account's wallet of its provider says (wallet-tokens.service.ts). */
export async function walletInstrument(
  db: Executor,
  ctx: RequestContext,
  form: WalletForm,
): Promise<ResolvedInstrument> {
  const provider: WalletProvider = form.method === 'applepay' ? 'apple' : 'google';
  const resolved = await resolveWalletToken(db, ctx, provider, form.token);
  return resolved.kind === 'decrypted'
    ? decrypted(db, ctx, form, provider, resolved.card)
    : encrypted(form, provider, resolved.encrypted);
}

/**
 * Run in the database transaction that records the transaction, before any connector call: an
 * Apple token's approved amount and currency must be those charged to it (`charge`: the
 * transaction's amount less its gift cards), and the token is recorded as used by `transactionId`,
 * so a second use of it is refused (wallet-token-uses.service.ts).
 */
export async function guardWalletToken(
  tx: Executor,
  ctx: RequestContext,
  check: WalletTokenCheck,
  charge: { amount: number; currency: string },
  transactionId: string,
): Promise<void> {
  if (!tx.isTransaction)
    throw new Error('a wallet token is recorded inside the database transaction that records its transaction');
  const problem = check.approved ? approvedAmountProblem(check.approved, charge) : null;
  if (problem) throw fieldRefusal('body', POINTER, problem, 'wallet_token_amount_mismatch');
  await recordWalletTokenUse(tx, ctx, check.use, transactionId);
}
