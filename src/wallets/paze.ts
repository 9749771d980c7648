import { createPublicKey, type KeyObject } from 'node:crypto';
import {
  calculateJwkThumbprint,
  compactDecrypt,
  compactVerify,
  decodeProtectedHeader,
  errors,
  exportJWK,
  type ProtectedHeaderParameters,
} from 'jose';
import { CURRENCY_EXPONENTS } from '../lib/currencies.ts';
import { fail } from './token-error.ts';
import type { WalletCard } from './wallet-card.ts';

/**
 * Paze payment payloads (developer.paze.com "Transaction Processing"): the completeResponse of a
 * Paze checkout is JWS(JWE(JWS(payload))). The outer JWS (RS256, signed by Paze) carries
 * `securedPayload`, a compact JWE (RSA-OAEP-256 + A256GCM) encrypted to the wallet partner's RSA
 * key; decrypted, it is an inner JWS signed by Paze whose payload is the network token:
 * `{clientId, profileId, token{paymentToken, tokenExpirationMonth, tokenExpirationYear,
 * paymentAccountReference}, paymentCardNetwork, dynamicData[{dynamicDataValue (the cryptogram),
 * dynamicDataType, dynamicDataExpiration}], billingAddress, consumer, eci}`.
 * Paze puts `iat`, `exp` and `jti` in the outer JWS's protected header; the payload's claims are
 * read too. JOSE by `jose`; nothing here logs.
 */

export interface PazeSigningKey {
  /** The key id Paze names in the JWS header (`kid`); null matches any. */
  kid: string | null;
  key: KeyObject;
}

export interface PazeTrust {
  /** Paze's signing public keys (PAZE_SIGNING_KEYS; the sandbox adds its own). */
  keys: readonly PazeSigningKey[];
  now: Date;
}

export interface PazeRecipient {
  /** The wallet's RSA private key the securedPayload is encrypted to. */
  privateKey: KeyObject;
  /** The wallet's Paze profile, when configured: a payload for another profile is refused. */
  profileId: string | null;
}

export const PAZE_SIGNATURE_ALG = 'RS256';
export const PAZE_KEY_ALG = 'RSA-OAEP-256';
export const PAZE_CONTENT_ALG = 'A256GCM';
/** Clock drift allowed between Paze and this server. */
const DRIFT_SECONDS = 300;
const NETWORKS: Record<string, string> = {
  VISA: 'visa',
  MASTERCARD: 'mastercard',
  DISCOVER: 'discover',
  AMEX: 'amex',
  AMERICAN_EXPRESS: 'amex',
};

type Claims = Record<string, unknown>;

/** The text of bytes, read through a view (no copy left behind once the bytes are zeroed). */
const textOf = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');

function parseJson(bytes: Uint8Array, what: string): Claims {
  try {
    const value = JSON.parse(textOf(bytes)) as unknown;
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Claims;
  } catch {
    // Answered below.
  }
  return fail('malformed', `${what} is not a JSON object`);
}

function headerOf(compact: string, what: string): ProtectedHeaderParameters {
  try {
    return decodeProtectedHeader(compact);
  } catch {
    return fail('malformed', `${what} is not a compact JOSE object (base64url parts separated by dots)`);
  }
}

/** Verifies a compact JWS with the trusted key its `kid` names (or each key); returns its header and payload. */
async function verifiedJws(
  jws: string,
  trust: PazeTrust,
  what: string,
): Promise<{ header: Claims; payload: Uint8Array }> {
  if (jws.split('.').length !== 3) fail('malformed', `${what} is not a compact JWS (three base64url parts)`);
  const header = headerOf(jws, what);
  if (header.alg !== PAZE_SIGNATURE_ALG)
    fail('unsupported', `${what} is signed with ${String(header.alg)}; Paze signs with ${PAZE_SIGNATURE_ALG}`);
  const named = trust.keys.filter((k) => k.kid !== null && k.kid === header.kid);
  for (const candidate of named.length > 0 ? named : trust.keys) {
    try {
      const { payload } = await compactVerify(jws, candidate.key, { algorithms: [PAZE_SIGNATURE_ALG] });
      return { header: header as Claims, payload };
    } catch (error) {
      if (!(error instanceof errors.JWSSignatureVerificationFailed))
        fail('malformed', `${what} could not be read: ${(error as Error).message.slice(0, 120)}`);
    }
  }
  return fail('signature', `${what} is not signed by a trusted Paze signing key (altered, or signed by another key)`);
}

/** `exp` must be ahead, `iat` not ahead (with drift); read from the JWS header, else the payload. */
function checkTimes(header: Claims, payload: Claims, now: Date, what: string): Date {
  const claim = (name: string) =>
    typeof header[name] === 'number'
      ? (header[name] as number)
      : typeof payload[name] === 'number'
        ? (payload[name] as number)
        : null;
  const [exp, iat, nowSeconds] = [claim('exp'), claim('iat'), now.getTime() / 1000];
  if (exp === null) fail('malformed', `${what} has no exp (expiry) claim`);
  if (exp! <= nowSeconds)
    fail('expired', `${what} expired at ${new Date(exp! * 1000).toISOString()}; complete a new Paze checkout`);
  if (iat !== null && iat > nowSeconds + DRIFT_SECONDS)
    fail('expired', `${what} was issued in the future (iat ${new Date(iat * 1000).toISOString()})`);
  return new Date(exp! * 1000);
}

async function decryptSecuredPayload(jwe: string, privateKey: KeyObject): Promise<Uint8Array> {
  const header = headerOf(jwe, 'The Paze securedPayload');
  if (header.alg !== PAZE_KEY_ALG || header.enc !== PAZE_CONTENT_ALG)
    fail(
      'unsupported',
      `The Paze securedPayload uses ${String(header.alg)} / ${String(header.enc)}; only ${PAZE_KEY_ALG} with ${PAZE_CONTENT_ALG} is supported`,
    );
  try {
    return (
      await compactDecrypt(jwe, privateKey, {
        keyManagementAlgorithms: [PAZE_KEY_ALG],
        contentEncryptionAlgorithms: [PAZE_CONTENT_ALG],
      })
    ).plaintext;
  } catch (error) {
    if (error instanceof errors.JWEInvalid) fail('malformed', 'The Paze securedPayload is not a valid compact JWE');
    // jose answers a wrong key and altered data alike (no padding oracle); the JWE's kid, when it
    // is a key thumbprint, tells the first apart.
    const thumbprint = await calculateJwkThumbprint(await exportJWK(createPublicKey(privateKey)));
    if (typeof header.kid === 'string' && header.kid !== thumbprint)
      fail(
        'wrong_key',
        `The Paze securedPayload was encrypted for another key (kid ${header.kid.slice(0, 64)}) than this wallet's payment processing key`,
      );
    return fail(
      'decryption',
      "The Paze securedPayload could not be decrypted with this wallet's payment processing key (tampered or altered, or encrypted for another key)",
    );
  }
}

/** The inner payload: a JWS signed by Paze (JWS(JWE(JWS))), or the JSON itself. */
async function innerPayload(plaintext: Uint8Array, trust: PazeTrust): Promise<Claims> {
  const text = textOf(plaintext);
  if (text.trimStart().startsWith('{')) return parseJson(plaintext, 'The decrypted Paze payload');
  const { payload } = await verifiedJws(text, trust, 'The decrypted Paze payload');
  try {
    return parseJson(payload, 'The decrypted Paze payload');
  } finally {
    payload.fill(0);
  }
}

/** `dynamicDataExpiration`: epoch seconds (or milliseconds) as text, or an ISO 8601 time. */
function expiryOf(value: unknown): Date | null {
  if (value === undefined || value === null || value === '') return null;
  const text = String(value);
  const time = /^\d{9,11}$/.test(text)
    ? Number(text) * 1000
    : /^\d{12,14}$/.test(text)
      ? Number(text)
      : Date.parse(text);
  return Number.isFinite(time)
    ? new Date(time)
    : fail('malformed', 'The Paze dynamicDataExpiration is neither epoch seconds nor an ISO 8601 time');
}

function amountOf(value: unknown): number | null {
  const v = value as { transactionAmount?: unknown; transactionCurrency?: unknown } | undefined;
  const exponent = typeof v?.transactionCurrency === 'string' ? CURRENCY_EXPONENTS[v.transactionCurrency] : undefined;
  if (
    exponent === undefined ||
    typeof v?.transactionAmount !== 'string' ||
    !/^\d{1,12}(\.\d{1,4})?$/.test(v.transactionAmount)
  )
    return null;
  const [units, fraction = ''] = v.transactionAmount.split('.');
  return fraction.length > exponent
    ? null
    : Number(units) * 10 ** exponent + Number(fraction.padEnd(exponent, '0') || '0');
}

/** The network token, its cryptogram (checked unexpired) and ECI. */
function cardOf(data: Claims, now: Date): Omit<WalletCard, 'tokenId'> {
  const token = (data.token ?? {}) as Claims;
  const number = token.paymentToken;
  const month = String(token.tokenExpirationMonth ?? '').padStart(2, '0');
  const year = String(token.tokenExpirationYear ?? '');
  if (typeof number !== 'string' || !/^\d{12,19}$/.test(number))
    fail('malformed', 'The decrypted Paze payload has no token.paymentToken (the network token)');
  if (!/^(0[1-9]|1[0-2])$/.test(month) || !/^(\d{2}|\d{4})$/.test(year))
    fail('malformed', 'The decrypted Paze payload has no valid token.tokenExpirationMonth / tokenExpirationYear');
  const dynamic = (Array.isArray(data.dynamicData) ? data.dynamicData : []).find(
    (d: Claims) => typeof d?.dynamicDataValue === 'string' && d.dynamicDataValue !== '',
  ) as Claims | undefined;
  const expiry = expiryOf(dynamic?.dynamicDataExpiration);
  if (expiry && expiry <= now)
    fail('expired', `The Paze cryptogram expired at ${expiry.toISOString()}; complete a new Paze checkout`);
  const eci = typeof data.eci === 'string' || typeof data.eci === 'number' ? String(data.eci) : null;
  const network =
    typeof data.paymentCardNetwork === 'string' ? (NETWORKS[data.paymentCardNetwork.toUpperCase()] ?? null) : null;
  return {
    kind: 'dpan',
    number: number as string,
    expirationDate: `${month}/${year.slice(-2)}`,
    cryptogram: (dynamic?.dynamicDataValue as string | undefined) ?? null,
    eci,
    amount: amountOf(data.transactionValue),
    scheme: network,
  };
}

/**
 * Verifies and decrypts a Paze completeResponse. Throws WalletTokenError; never logs. The
 * decrypted bytes are zeroed once parsed.
 */
export async function decryptPazeToken(token: string, recipient: PazeRecipient, trust: PazeTrust): Promise<WalletCard> {
  const what = 'The Paze completeResponse';
  const outer = await verifiedJws(token, trust, what);
  const body = parseJson(outer.payload, what);
  const expires = checkTimes(outer.header, body, trust.now, what);
  if (typeof body.securedPayload !== 'string') fail('malformed', `${what} has no securedPayload`);
  const plaintext = await decryptSecuredPayload(body.securedPayload as string, recipient.privateKey);
  let data: Claims;
  try {
    data = await innerPayload(plaintext, trust);
  } finally {
    plaintext.fill(0);
  }
  if (recipient.profileId !== null && data.profileId !== recipient.profileId)
    fail(
      'wrong_key',
      "The Paze payload was made for another Paze profile than this wallet's (extra_configuration.profile_id)",
    );
  const id = [body.payloadId, outer.header.jti, body.jti].find((v): v is string => typeof v === 'string' && v !== '');
  // The token is accepted until its JWS expires: the replay guard keeps its id that long.
  return { ...cardOf(data, trust.now), usableUntil: expires, ...(id ? { tokenId: id } : {}) };
}

/** The session id a Paze completeResponse names, without verifying it (to compare with a checkout_token). */
export function sessionIdOf(token: string): string | null {
  try {
    const payload = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as Claims;
    return typeof payload.sessionId === 'string' ? payload.sessionId : null;
  } catch {
    return null;
  }
}

/**
 * Verifies the checkout_token of a Paze payment (the JWS of Paze's checkout response): signed by
 * Paze, unexpired, and of the same session as the completeResponse when both name one.
 */
export async function verifyPazeCheckoutToken(
  checkoutToken: string,
  trust: PazeTrust,
  sessionId: string | null,
): Promise<void> {
  const what = 'The Paze checkout_token';
  const { header, payload } = await verifiedJws(checkoutToken, trust, what);
  const claims = parseJson(payload, what);
  checkTimes(header, claims, trust.now, what);
  if (sessionId !== null && typeof claims.sessionId === 'string' && claims.sessionId !== sessionId)
    fail('malformed', `${what} belongs to another Paze session than the completeResponse`);
}
