import { createHash, createPublicKey, randomBytes, randomUUID, type KeyObject } from 'node:crypto';
import { currencyExponent } from '../lib/currencies.ts';
import { currencyNumber } from '../lib/currency-numbers.ts';
import { makeApplePayToken } from './apple-pay.ts';
import { makeGooglePayToken } from './google-pay.ts';
import { makePazeCompleteResponse } from './paze-complete-response.ts';
import { sandboxPazePayload, SANDBOX_PAZE_ISSUER, simulatedCryptogram } from './paze-sandbox.ts';
import { sandboxPazeKeys, sandboxWalletKeys } from './sandbox-keys.ts';

/**
 * Valid wallet test tokens signed by the sandbox's own chain (sandbox-keys.ts) and encrypted to the
 * sandbox's processing keys, or to a recipient given (a merchant's own processing key): what a
 * device would hand the checkout. `svc wallet-token`, the hosted page's simulated wallet sheet and
 * the tests make them; the server verifies and decrypts them through the same code as real tokens.
 * Only a server with ENVIRONMENT=sandbox trusts the signing chain, so no production server accepts them.
 */

/** Whom a token is encrypted for: the public half of the key that will decrypt it. */
export interface SandboxRecipient {
  publicKey: KeyObject;
  /** Apple: the merchant identifier; Google: the recipient id (`gateway:svc`, `merchant:<id>`). */
  id: string;
}

export interface SandboxCard {
  /** The device token (Apple) or card number (Google) the token carries. */
  number: string;
  /** `MM/YY`. */
  expirationDate: string;
  /** Minor units; Apple tokens carry the approved amount (default 0), which must be the amount charged. */
  amount?: number;
  /** Apple: the currency of `amount`, alphabetic (default USD); the token carries its ISO 4217 number. */
  currency?: string;
  /** Default: a cryptogram derived from the number. */
  cryptogram?: string;
  eci?: string;
}

const cryptogramOf = (number: string) =>
  createHash('sha256').update(`sandbox-cryptogram:${number}`).digest().subarray(0, 20).toString('base64');
const NETWORKS: Record<string, string> = {
  '4': 'Visa',
  '5': 'MasterCard',
  '2': 'MasterCard',
  '3': 'AmEx',
  '6': 'Discover',
};

function numberOf(currency: string): string {
  const number = currencyNumber(currency);
  if (!number) throw new Error(`${currency} is not an ISO 4217 currency code`);
  return number;
}

/** An Apple Pay `EC_v1` token (Apple Pay JS `payment.token`), signed now by the sandbox chain. */
export function sandboxApplePayToken(
  card: SandboxCard,
  signingTime = new Date(),
  recipient?: SandboxRecipient,
): Record<string, unknown> {
  const keys = sandboxWalletKeys().apple;
  const [month, year] = card.expirationDate.split('/');
  const payment = {
    applicationPrimaryAccountNumber: card.number,
    applicationExpirationDate: `${year}${month}${month === '02' ? '28' : '30'}`,
    currencyCode: numberOf(card.currency ?? 'USD'),
    transactionAmount: card.amount ?? 0,
    deviceManufacturerIdentifier: '040010030273',
    paymentDataType: '3DSecure',
    paymentData: {
      onlinePaymentCryptogram: card.cryptogram ?? cryptogramOf(card.number),
      eciIndicator: card.eci ?? '07',
    },
  };
  const to = recipient ?? { publicKey: createPublicKey(keys.processingKey), id: keys.merchantIdentifier };
  return makeApplePayToken({
    payment,
    recipientPublicKey: to.publicKey,
    merchantIdentifier: to.id,
    signer: keys.signer,
    signingTime,
    network: NETWORKS[card.number[0]!] ?? 'Visa',
  });
}

/** A Google Pay `ECv2` token for the sandbox gateway (or `recipient`), valid for an hour. */
export function sandboxGooglePayToken(
  card: SandboxCard & { authMethod?: 'CRYPTOGRAM_3DS' | 'PAN_ONLY'; gatewayMerchantId?: string },
  now = new Date(),
  recipient?: SandboxRecipient,
): Record<string, unknown> {
  const keys = sandboxWalletKeys().google;
  const [month, year] = card.expirationDate.split('/');
  const cryptogram =
    card.authMethod === 'PAN_ONLY'
      ? {}
      : { cryptogram: card.cryptogram ?? cryptogramOf(card.number), eciIndicator: card.eci ?? '05' };
  const message = {
    gatewayMerchantId: card.gatewayMerchantId ?? 'sandbox',
    messageExpiration: String(now.getTime() + 3600_000),
    // Random, like Google's: each token is a new payment (the replay guard keys on it).
    messageId: randomBytes(16).toString('hex'),
    paymentMethod: 'CARD',
    paymentMethodDetails: {
      pan: card.number,
      expirationMonth: Number(month),
      expirationYear: 2000 + Number(year),
      authMethod: card.authMethod ?? 'CRYPTOGRAM_3DS',
      ...cryptogram,
    },
  };
  return makeGooglePayToken({
    message,
    recipientId: recipient?.id ?? keys.recipientId,
    recipientPublicKey: recipient?.publicKey ?? createPublicKey(keys.processingKey),
    intermediate: {
      privateKey: keys.intermediateKey,
      publicKey: createPublicKey(keys.intermediateKey),
      expiration: new Date(now.getTime() + 7 * 86400_000),
    },
    rootPrivateKey: keys.rootKey,
  });
}

/**
 * A Paze completeResponse (JWS(JWE(JWS))) signed by the sandbox's Paze key and encrypted to the
 * sandbox's Paze wallet key, valid for an hour (its cryptogram for 15 minutes): what the simulated
 * Paze's complete answers, without the session. `profileId`: the wallet's extra_configuration.profile_id, if set.
 */
export async function sandboxPazeToken(
  card: SandboxCard & { profileId?: string; amount?: number; currency?: string },
  now = new Date(),
): Promise<{ payloadId: string; completeResponse: string }> {
  const keys = sandboxPazeKeys();
  const [month, year] = card.expirationDate.split('/');
  const sessionId = randomUUID();
  const payloadId = randomUUID();
  const currency = card.currency ?? 'USD';
  const exponent = currencyExponent(currency);
  const transactionValue = card.amount
    ? { transactionAmount: (card.amount / 10 ** exponent).toFixed(exponent), transactionCurrency: currency }
    : null;
  const network = /^[25]/.test(card.number) ? 'MASTERCARD' : 'VISA';
  const data = sandboxPazePayload(
    { id: card.number, dpan: card.number, network },
    {
      clientId: 'SANDBOX',
      profileId: card.profileId ?? 'SANDBOX',
      cryptogram: card.cryptogram ?? simulatedCryptogram(sessionId, payloadId),
      now,
      transactionValue,
      expiry: { month: month!, year: `20${year}` },
      ...(card.eci ? { eci: card.eci } : {}),
    },
  );
  const made = await makePazeCompleteResponse({
    data,
    recipientPublicKey: createPublicKey(keys.processingKey),
    signer: { key: keys.signingKey, kid: keys.signingKeyId },
    sessionId,
    payloadId,
    issuedAt: now,
    lifetimeSeconds: 3600,
    issuer: SANDBOX_PAZE_ISSUER,
  });
  return { payloadId, completeResponse: made.completeResponse };
}
