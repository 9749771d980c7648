import { createHash, createPublicKey, type KeyObject } from 'node:crypto';
import { makeApplePayToken } from './apple-pay.ts';
import { makeGooglePayToken } from './google-pay.ts';
import { sandboxWalletKeys } from './sandbox-keys.ts';

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
  /** Minor units; Apple tokens carry the approved amount. */
  amount?: number;
  /** Default: a cryptogram derived from the number. */
  cryptogram?: string;
  eci?: string;
}

const cryptogramOf = (number: string) => createHash('sha256').update(`sandbox-cryptogram:${number}`).digest().subarray(0, 20).toString('base64');
const NETWORKS: Record<string, string> = { '4': 'Visa', '5': 'MasterCard', '2': 'MasterCard', '3': 'AmEx', '6': 'Discover' };

/** An Apple Pay `EC_v1` token (Apple Pay JS `payment.token`), signed now by the sandbox chain. */
export function sandboxApplePayToken(card: SandboxCard, signingTime = new Date(), recipient?: SandboxRecipient): Record<string, unknown> {
  const keys = sandboxWalletKeys().apple;
  const [month, year] = card.expirationDate.split('/');
  const payment = {
    applicationPrimaryAccountNumber: card.number,
    applicationExpirationDate: `${year}${month}${month === '02' ? '28' : '30'}`,
    currencyCode: '840',
    transactionAmount: card.amount ?? 0,
    deviceManufacturerIdentifier: '040010030273',
    paymentDataType: '3DSecure',
    paymentData: { onlinePaymentCryptogram: card.cryptogram ?? cryptogramOf(card.number), eciIndicator: card.eci ?? '07' },
  };
  const to = recipient ?? { publicKey: createPublicKey(keys.processingKey), id: keys.merchantIdentifier };
  return makeApplePayToken({ payment, recipientPublicKey: to.publicKey, merchantIdentifier: to.id, signer: keys.signer, signingTime, network: NETWORKS[card.number[0]!] ?? 'Visa' });
}

/** A Google Pay `ECv2` token for the sandbox gateway (or `recipient`), valid for an hour. */
export function sandboxGooglePayToken(card: SandboxCard & { authMethod?: 'CRYPTOGRAM_3DS' | 'PAN_ONLY'; gatewayMerchantId?: string }, now = new Date(), recipient?: SandboxRecipient): Record<string, unknown> {
  const keys = sandboxWalletKeys().google;
  const [month, year] = card.expirationDate.split('/');
  const cryptogram = card.authMethod === 'PAN_ONLY' ? {} : { cryptogram: card.cryptogram ?? cryptogramOf(card.number), eciIndicator: card.eci ?? '05' };
  const message = {
    gatewayMerchantId: card.gatewayMerchantId ?? 'sandbox',
    messageExpiration: String(now.getTime() + 3600_000),
    messageId: createHash('sha256').update(`${card.number}:${now.getTime()}`).digest('hex').slice(0, 32),
    paymentMethod: 'CARD',
    paymentMethodDetails: { pan: card.number, expirationMonth: Number(month), expirationYear: 2000 + Number(year), authMethod: card.authMethod ?? 'CRYPTOGRAM_3DS', ...cryptogram },
  };
  return makeGooglePayToken({
    message,
    recipientId: recipient?.id ?? keys.recipientId,
    recipientPublicKey: recipient?.publicKey ?? createPublicKey(keys.processingKey),
    intermediate: { privateKey: keys.intermediateKey, publicKey: createPublicKey(keys.intermediateKey), expiration: new Date(now.getTime() + 7 * 86400_000) },
    rootPrivateKey: keys.rootKey,
  });
}
