import { X509Certificate } from 'node:crypto';
import { isExpired } from '../../lib/card-schemes.ts';
import { decryptApplePayToken } from '../../wallets/apple-pay.ts';
import { APPLE_ROOT_CA_G3 } from '../../wallets/apple-root.ts';
import { decryptGooglePayToken } from '../../wallets/google-pay.ts';
import { sandboxWalletKeys } from '../../wallets/sandbox-keys.ts';
import { WalletTokenError } from '../../wallets/token-error.ts';
import { approvedAmountProblem } from '../../wallets/token-use.ts';
import type { WalletCard } from '../../wallets/wallet-card.ts';
import type { AuthorizeRequest, Instrument } from '../connector.ts';

/**
 * mock-card's side of provider-side decryption (docs/digital-wallets.md, "Passing tokens on"): the
 * simulated provider holds the sandbox's wallet keys and trusts the sandbox roots (and Apple's), so
 * it verifies and decrypts a token passed on encrypted with the same pure code the server uses
 * (src/wallets/), then pays the device token like a card. Like a provider, it refuses a token it
 * cannot verify or decrypt (made for other keys, tampered, too old), an Apple token whose approved
 * amount is not the one charged, and an expired card: declines with ISO 8583 reason codes. No
 * database, no vault (STYLE C4); the card lives in memory for the one call.
 */

/** The simulated provider's age limit for Apple tokens (the server's default WALLET_TOKEN_MAX_AGE_SECONDS). */
const MAX_AGE_SECONDS = 300;

type WalletTokenInstrument = Extract<Instrument, { kind: 'wallet-token' }>;

export type OpenedWalletToken =
  | { ok: true; instrument: Extract<Instrument, { kind: 'card' | 'network-token' }> }
  | {
      ok: false;
      errorCode: 'invalid_card_number' | 'invalid_amount' | 'expired_card';
      rawCode: string;
      rawDescription: string;
    };

const NAMES = { apple: 'Apple Pay', google: 'Google Pay' } as const;

function decrypt(instrument: WalletTokenInstrument, now: Date): WalletCard {
  const keys = sandboxWalletKeys();
  let token: Record<string, unknown>;
  try {
    token = JSON.parse(instrument.token) as Record<string, unknown>;
  } catch {
    throw new WalletTokenError('malformed', 'the token is not JSON');
  }
  if (instrument.provider === 'apple') {
    const roots = [new X509Certificate(APPLE_ROOT_CA_G3), keys.apple.root];
    return decryptApplePayToken(
      token,
      { privateKey: keys.apple.processingKey, merchantIdentifier: keys.apple.merchantIdentifier },
      { roots, now, maxAgeSeconds: MAX_AGE_SECONDS },
    );
  }
  return decryptGooglePayToken(
    token,
    { privateKey: keys.google.processingKey, recipientId: keys.google.recipientId },
    [keys.google.root],
    now,
  );
}

/** Decrypts the token of an authorization and checks it as the provider would; the card on success. */
export function openWalletToken(
  instrument: WalletTokenInstrument,
  request: Pick<AuthorizeRequest, 'amount' | 'currency'>,
  now = new Date(),
): OpenedWalletToken {
  let card: WalletCard;
  try {
    card = decrypt(instrument, now);
  } catch (error) {
    if (!(error instanceof WalletTokenError)) throw error;
    return {
      ok: false,
      errorCode: 'invalid_card_number',
      rawCode: '14',
      rawDescription: `The ${NAMES[instrument.provider]} token was refused: ${error.message}`,
    };
  }
  if (instrument.provider === 'apple') {
    const problem = approvedAmountProblem({ amount: card.amount, currencyCode: card.currencyCode ?? null }, request);
    if (problem) return { ok: false, errorCode: 'invalid_amount', rawCode: '13', rawDescription: problem };
  }
  if (isExpired(card.expirationDate, now))
    return {
      ok: false,
      errorCode: 'expired_card',
      rawCode: '54',
      rawDescription: 'The card in the wallet token has expired',
    };
  const scheme = instrument.scheme;
  if (card.kind === 'fpan')
    return {
      ok: true,
      instrument: {
        kind: 'card',
        number: card.number,
        expirationDate: card.expirationDate,
        securityCode: null,
        scheme,
      },
    };
  return {
    ok: true,
    instrument: {
      kind: 'network-token',
      token: card.number,
      expirationDate: card.expirationDate,
      cryptogram: card.cryptogram,
      eci: card.eci,
      scheme,
    },
  };
}
