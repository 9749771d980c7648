import { formatAmount } from '../lib/currencies.ts';
import { currencyNumber, currencyOfNumber } from '../lib/currency-numbers.ts';
import { appleTokenId, paymentDataOf } from './apple-pay.ts';
import { signedMessageDigest } from './google-pay.ts';
import { base64Field, fail } from './token-error.ts';

/**
 * What the engine checks of a wallet token besides its cryptography: that its approved amount is
 * the one charged (Apple), and, for a token passed on encrypted to a payment service that decrypts
 * it, its shape and the id the replay guard records. Pure: no database, no keys.
 */

export type WalletProvider = 'apple' | 'google';

/** An encrypted token to pass on to a payment service, with what the replay guard needs. */
export interface EncryptedWalletToken {
  /** Apple: the JSON text of `paymentData`; Google: the token's JSON text. */
  token: string;
  /** Apple: `header.transactionId` (lowercase hex); Google: SHA-256 of `signedMessage` (its messageId is encrypted). */
  tokenId: string;
  /** Until when the token might still be accepted by a payment service. */
  usableUntil: Date;
}

const DAY_MS = 86_400_000;
/**
 * An Apple token passed on is not verified here, so its signing time is unknown to us and the
 * payment service's age limit is its own: a day outlasts any such limit we know of (this server's
 * is WALLET_TOKEN_MAX_AGE_SECONDS, at most an hour).
 */
export const PASSED_APPLE_TOKEN_LIFE_MS = DAY_MS;
/** A Google message cannot verify after its intermediate signing key expires; bounded in case that date is absurd. */
export const PASSED_GOOGLE_TOKEN_LIFE_MS = 30 * DAY_MS;

function parsed(token: string | Record<string, unknown>, what: string): Record<string, any> {
  if (typeof token !== 'string') return token;
  try {
    const value = JSON.parse(token);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value;
  } catch {
    /* answered below */
  }
  return fail('malformed', `${what} is not a JSON object`);
}

function appleToken(token: string | Record<string, unknown>, now: Date): EncryptedWalletToken {
  if (typeof token !== 'object')
    fail('malformed', 'An Apple Pay token is the JSON object Apple Pay JS gives (payment.token)');
  // RSA_v1 is passed on too: the payment service decides what it decrypts.
  const paymentData = paymentDataOf(token as Record<string, unknown>, ['EC_v1', 'RSA_v1']);
  base64Field(paymentData.data, 'paymentData.data');
  base64Field(paymentData.signature, 'paymentData.signature');
  return {
    token: JSON.stringify(paymentData),
    tokenId: appleTokenId(paymentData),
    usableUntil: new Date(now.getTime() + PASSED_APPLE_TOKEN_LIFE_MS),
  };
}

function googleToken(token: string | Record<string, unknown>, now: Date): EncryptedWalletToken {
  const value = parsed(token, 'The Google Pay token');
  if (value.protocolVersion !== 'ECv2')
    fail(
      'unsupported',
      `Google Pay protocolVersion ${String(value.protocolVersion)} is not supported; only ECv2 tokens are taken`,
    );
  if (typeof value.signedMessage !== 'string' || value.signedMessage === '' || typeof value.signature !== 'string')
    fail('malformed', 'The Google Pay token has no signedMessage and signature');
  const signedKey = value.intermediateSigningKey?.signedKey;
  if (typeof signedKey !== 'string')
    fail('malformed', 'The Google Pay token has no intermediateSigningKey with signedKey and signatures');
  const bound = now.getTime() + PASSED_GOOGLE_TOKEN_LIFE_MS;
  let keyExpiration = bound;
  try {
    const expiration = Number(JSON.parse(signedKey).keyExpiration);
    if (expiration > now.getTime() && expiration < bound) keyExpiration = expiration;
  } catch {
    /* the payment service refuses it; the bound applies */
  }
  return {
    token: typeof token === 'string' ? token : JSON.stringify(token),
    tokenId: signedMessageDigest(value.signedMessage),
    usableUntil: new Date(keyExpiration),
  };
}

/** Checks the shape of a token to pass on encrypted (no cryptography: the payment service verifies it). Throws WalletTokenError. */
export function encryptedWalletToken(
  provider: WalletProvider,
  token: string | Record<string, unknown>,
  now: Date,
): EncryptedWalletToken {
  return provider === 'apple' ? appleToken(token, now) : googleToken(token, now);
}

const described = (amount: number, number: string) => {
  const currency = currencyOfNumber(number);
  return currency ? formatAmount(amount, currency) : `${amount} minor units of currency ${number}`;
};

/**
 * Why an Apple token's approved `transactionAmount` / `currencyCode` (minor units, ISO 4217
 * numeric) do not pay `charge` (the amount charged to the wallet's card), or null when they do. A
 * token without them is refused: the buyer's approval cannot be checked.
 */
export function approvedAmountProblem(
  approved: { amount: number | null; currencyCode: string | null },
  charge: { amount: number; currency: string },
): string | null {
  const expected = currencyNumber(charge.currency);
  const charged = formatAmount(charge.amount, charge.currency);
  if (
    approved.amount === null ||
    !Number.isSafeInteger(approved.amount) ||
    approved.amount < 0 ||
    approved.currencyCode === null ||
    !/^\d{1,3}$/.test(approved.currencyCode)
  ) {
    return `The Apple Pay token carries no valid transactionAmount and currencyCode, so the amount the buyer approved is unknown and it cannot pay ${charged}`;
  }
  if (approved.amount === charge.amount && expected !== null && Number(approved.currencyCode) === Number(expected))
    return null;
  return `The buyer approved ${described(approved.amount, approved.currencyCode)} in Apple Pay, but this transaction charges ${charged} to the token: the amount and currency must be the ones the buyer approved (show the new total in the Apple Pay sheet and request a new token)`;
}
