import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createPublicKey,
  diffieHellman,
  generateKeyPairSync,
  randomBytes,
  type X509Certificate,
  type KeyObject,
} from 'node:crypto';
import { signDetached, verifyDetached, type Signer } from './pkcs7.ts';
import { base64Field, fail } from './token-error.ts';
import type { WalletCard } from './wallet-card.ts';

/**
 * Apple Pay payment tokens, `EC_v1` (https://developer.apple.com/documentation/passkit/payment-token-format-reference):
 * the signature is a detached PKCS#7 over ephemeralPublicKey ‖ data ‖ transactionId ‖ applicationData
 * by Apple's leaf certificate (marker 1.2.840.113635.100.6.29) under its intermediate
 * (1.2.840.113635.100.6.2.14) under the Apple root. The data is AES-256-GCM (16 zero bytes IV) under
 * a key derived by the NIST SP 800-56A single-step KDF (SHA-256) from the ECDH secret of the
 * ephemeral key and the merchant's payment processing key, with the other info
 * 0x0D ‖ "id-aes256-GCM" ‖ "Apple" ‖ SHA-256(merchant identifier).
 */

export const APPLE_LEAF_MARKER = '1.2.840.113635.100.6.29';
export const APPLE_INTERMEDIATE_MARKER = '1.2.840.113635.100.6.2.14';

export interface AppleRecipient {
  /** The payment processing private key (EC P-256). */
  privateKey: KeyObject;
  /** The Apple merchant identifier (`merchant.com.example`). */
  merchantIdentifier: string;
}

export interface AppleTrust {
  roots: readonly X509Certificate[];
  now: Date;
  maxAgeSeconds: number;
}

export interface PaymentData {
  version: string;
  data: string;
  signature: string;
  header: { ephemeralPublicKey: string; publicKeyHash: string; transactionId: string; applicationData?: string };
}

/** The token as Apple Pay JS gives it (`{paymentData, paymentMethod, transactionIdentifier}`) or its `paymentData` alone. */
export function paymentDataOf(token: Record<string, unknown>, versions: readonly string[] = ['EC_v1']): PaymentData {
  const data = (
    typeof token.paymentData === 'object' && token.paymentData !== null ? token.paymentData : token
  ) as Partial<PaymentData>;
  if (typeof data.version !== 'string') fail('malformed', 'The Apple Pay token has no paymentData.version');
  if (!versions.includes(data.version!))
    fail(
      'unsupported',
      `Apple Pay token version ${data.version} is not supported; only ${versions.join(' and ')} tokens are taken`,
    );
  const header = data.header as Partial<PaymentData['header']> | undefined;
  // Even length: Buffer.from(hex) drops a trailing odd digit, so "ab1" would sign like "ab" and dodge the replay guard.
  if (!header || typeof header.transactionId !== 'string' || !/^([0-9a-fA-F]{2})+$/.test(header.transactionId))
    fail('malformed', 'The Apple Pay token has no hexadecimal paymentData.header.transactionId');
  if (
    header!.applicationData !== undefined &&
    (typeof header!.applicationData !== 'string' || !/^[0-9a-fA-F]*$/.test(header!.applicationData))
  )
    fail('malformed', 'paymentData.header.applicationData must be hexadecimal');
  return data as PaymentData;
}

/** The token's unique id: `header.transactionId` as lowercase hex (its letter case is not signed). */
export const appleTokenId = (paymentData: PaymentData) => paymentData.header.transactionId.toLowerCase();

export const publicKeyHash = (key: KeyObject) =>
  createHash('sha256')
    .update((key.type === 'public' ? key : createPublicKey(key)).export({ type: 'spki', format: 'der' }))
    .digest('base64');

/** The symmetric key of the single-step KDF (counter 1, one SHA-256 block = 32 bytes). */
function symmetricKey(sharedSecret: Buffer, merchantIdentifier: string): Buffer {
  const partyV = createHash('sha256').update(merchantIdentifier).digest();
  const otherInfo = Buffer.concat([Buffer.from([0x0d]), Buffer.from('id-aes256-GCM'), Buffer.from('Apple'), partyV]);
  return createHash('sha256')
    .update(Buffer.from([0, 0, 0, 1]))
    .update(sharedSecret)
    .update(otherInfo)
    .digest();
}

const signedContent = (ephemeral: Buffer, data: Buffer, header: PaymentData['header']) =>
  Buffer.concat([
    ephemeral,
    data,
    Buffer.from(header.transactionId, 'hex'),
    Buffer.from(header.applicationData ?? '', 'hex'),
  ]);

function cardOf(plain: Record<string, any>): WalletCard {
  const pan = plain.applicationPrimaryAccountNumber;
  const expiry = plain.applicationExpirationDate;
  if (typeof pan !== 'string' || !/^\d{12,19}$/.test(pan) || typeof expiry !== 'string' || !/^\d{6}$/.test(expiry))
    fail('malformed', 'The decrypted Apple Pay token lacks a device account number or its expiration date');
  if (plain.paymentDataType !== '3DSecure')
    fail(
      'unsupported',
      `Apple Pay payment data type ${String(plain.paymentDataType)} is not supported; only 3DSecure tokens are processed`,
    );
  const cryptogram = plain.paymentData?.onlinePaymentCryptogram;
  if (typeof cryptogram !== 'string' || cryptogram === '')
    fail('malformed', 'The decrypted Apple Pay token has no online payment cryptogram');
  const eci = typeof plain.paymentData?.eciIndicator === 'string' ? plain.paymentData.eciIndicator : null;
  const amount = typeof plain.transactionAmount === 'number' ? plain.transactionAmount : null;
  const currencyCode = typeof plain.currencyCode === 'string' ? plain.currencyCode : null;
  return {
    kind: 'dpan',
    number: pan,
    expirationDate: `${expiry.slice(2, 4)}/${expiry.slice(0, 2)}`,
    cryptogram,
    eci,
    amount,
    currencyCode,
  };
}

/** Verifies and decrypts an Apple Pay token. Throws WalletTokenError; never logs. */
export function decryptApplePayToken(
  token: Record<string, unknown>,
  recipient: AppleRecipient,
  trust: AppleTrust,
): WalletCard {
  const paymentData = paymentDataOf(token);
  const ephemeral = base64Field(paymentData.header.ephemeralPublicKey, 'paymentData.header.ephemeralPublicKey');
  const data = base64Field(paymentData.data, 'paymentData.data');
  const signature = base64Field(paymentData.signature, 'paymentData.signature');
  const signingTime = verifyDetached(signature, signedContent(ephemeral, data, paymentData.header), {
    roots: trust.roots,
    leafMarker: APPLE_LEAF_MARKER,
    intermediateMarker: APPLE_INTERMEDIATE_MARKER,
    now: trust.now,
    maxAgeSeconds: trust.maxAgeSeconds,
  });
  if (paymentData.header.publicKeyHash !== publicKeyHash(recipient.privateKey))
    fail('wrong_key', "The Apple Pay token was encrypted for another payment processing key than this wallet's");
  let plain: Buffer;
  try {
    const secret = diffieHellman({
      privateKey: recipient.privateKey,
      publicKey: createPublicKey({ key: ephemeral, format: 'der', type: 'spki' }),
    });
    const decipher = createDecipheriv(
      'aes-256-gcm',
      symmetricKey(secret, recipient.merchantIdentifier),
      Buffer.alloc(16),
    );
    decipher.setAuthTag(data.subarray(data.length - 16));
    plain = Buffer.concat([decipher.update(data.subarray(0, data.length - 16)), decipher.final()]);
  } catch {
    return fail(
      'decryption',
      "The Apple Pay token could not be decrypted with this wallet's payment processing key (wrong key or altered data)",
    );
  }
  try {
    const usableUntil = new Date(signingTime.getTime() + trust.maxAgeSeconds * 1000);
    return { ...cardOf(JSON.parse(plain.toString('utf8'))), tokenId: appleTokenId(paymentData), usableUntil };
  } finally {
    plain.fill(0);
  }
}

export interface AppleTokenInput {
  payment: Record<string, unknown>;
  recipientPublicKey: KeyObject;
  merchantIdentifier: string;
  signer: Signer;
  signingTime: Date;
  /** `paymentMethod.network` (`Visa`, `MasterCard`, ...). */
  network: string;
}

/** Makes an `EC_v1` token (sandbox test tokens, tests): the wallet's side of the protocol. */
export function makeApplePayToken(input: AppleTokenInput): Record<string, unknown> {
  const ephemeral = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const secret = diffieHellman({ privateKey: ephemeral.privateKey, publicKey: input.recipientPublicKey });
  const cipher = createCipheriv('aes-256-gcm', symmetricKey(secret, input.merchantIdentifier), Buffer.alloc(16));
  const data = Buffer.concat([cipher.update(JSON.stringify(input.payment)), cipher.final(), cipher.getAuthTag()]);
  const ephemeralDer = ephemeral.publicKey.export({ type: 'spki', format: 'der' });
  const header = {
    ephemeralPublicKey: ephemeralDer.toString('base64'),
    publicKeyHash: publicKeyHash(input.recipientPublicKey),
    transactionId: randomBytes(32).toString('hex'),
  };
  const signature = signDetached(signedContent(ephemeralDer, data, header), input.signer, input.signingTime);
  return {
    paymentData: { version: 'EC_v1', data: data.toString('base64'), signature: signature.toString('base64'), header },
    paymentMethod: {
      displayName: `Card ${String(input.payment.applicationPrimaryAccountNumber ?? '').slice(-4)}`,
      network: input.network,
      type: 'debit',
    },
    transactionIdentifier: header.transactionId.toUpperCase(),
  };
}
