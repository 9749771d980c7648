import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  createPublicKey,
  diffieHellman,
  generateKeyPairSync,
  hkdfSync,
  sign,
  timingSafeEqual,
  verify,
  type KeyObject,
} from 'node:crypto';
import { base64Field, fail } from './token-error.ts';
import type { WalletCard } from './wallet-card.ts';

/**
 * Google Pay payment tokens, `ECv2` (https://developers.google.com/pay/api/web/guides/resources/payment-data-cryptography):
 * a root signing key (published by Google) signs the intermediate signing key, which signs the
 * message for one recipient (`merchant:<id>` or `gateway:<id>`). The message is AES-256-CTR (zero
 * IV) with an HMAC-SHA256 tag, both keys from HKDF-SHA256 (salt: 32 zero bytes, info "Google")
 * over ephemeralPublicKey ‖ ECDH secret. Signatures are ECDSA P-256/SHA-256 (DER).
 */

const SENDER = 'Google';
const PROTOCOL = 'ECv2';

export interface GoogleRootKey {
  /** Base64 of the DER SubjectPublicKeyInfo. */
  keyValue: string;
  protocolVersion: string;
  /** Milliseconds since the epoch, as text; absent: does not expire. */
  keyExpiration?: string;
}

export interface GoogleRecipient {
  privateKey: KeyObject;
  /** `merchant:<merchant id>` (direct) or `gateway:<gateway id>`. */
  recipientId: string;
}

/** 4-byte little-endian length ‖ UTF-8 bytes of each part (Google's signed string format). */
function lengthValue(...parts: string[]): Buffer {
  return Buffer.concat(
    parts.flatMap((part) => {
      const bytes = Buffer.from(part, 'utf8');
      const length = Buffer.alloc(4);
      length.writeUInt32LE(bytes.length);
      return [length, bytes];
    }),
  );
}

const spki = (base64: string, what: string) => {
  try {
    return createPublicKey({ key: base64Field(base64, what), format: 'der', type: 'spki' });
  } catch {
    return fail('malformed', `${what} is not an EC public key`);
  }
};

function parseJson(text: unknown, what: string): Record<string, any> {
  if (typeof text !== 'string') return fail('malformed', `${what} must be a JSON string`);
  try {
    const value = JSON.parse(text);
    if (typeof value === 'object' && value !== null) return value;
  } catch {
    /* answered below */
  }
  return fail('malformed', `${what} is not valid JSON`);
}

/** The intermediate signing key after checking its signature by a root key and its expiration. */
function intermediateKey(token: Record<string, any>, roots: readonly GoogleRootKey[], now: Date): KeyObject {
  const intermediate = token.intermediateSigningKey as { signedKey?: unknown; signatures?: unknown } | undefined;
  if (!intermediate || typeof intermediate.signedKey !== 'string' || !Array.isArray(intermediate.signatures))
    fail('malformed', 'The Google Pay token has no intermediateSigningKey with signedKey and signatures');
  const signed = lengthValue(SENDER, PROTOCOL, intermediate!.signedKey as string);
  const usable = roots.filter(
    (r) => r.protocolVersion === PROTOCOL && (r.keyExpiration === undefined || Number(r.keyExpiration) > now.getTime()),
  );
  const trusted = usable.some((root) =>
    (intermediate!.signatures as unknown[]).some(
      (s) =>
        typeof s === 'string' &&
        verify('sha256', signed, spki(root.keyValue, 'root keyValue'), Buffer.from(s, 'base64')),
    ),
  );
  if (!trusted) fail('signature', 'The intermediate signing key is not signed by a trusted Google root signing key');
  const key = parseJson(intermediate!.signedKey, 'intermediateSigningKey.signedKey');
  if (!(Number(key.keyExpiration) > now.getTime())) fail('expired', 'The intermediate signing key has expired');
  return spki(key.keyValue, 'intermediateSigningKey keyValue');
}

function decryptMessage(message: Record<string, any>, recipient: GoogleRecipient): Record<string, any> {
  const ephemeral = base64Field(message.ephemeralPublicKey, 'signedMessage.ephemeralPublicKey');
  const encrypted = base64Field(message.encryptedMessage, 'signedMessage.encryptedMessage');
  const tag = base64Field(message.tag, 'signedMessage.tag');
  let keys: Buffer;
  try {
    const jwk = {
      kty: 'EC',
      crv: 'P-256',
      x: ephemeral.subarray(1, 33).toString('base64url'),
      y: ephemeral.subarray(33, 65).toString('base64url'),
    };
    if (ephemeral.length !== 65 || ephemeral[0] !== 4) throw new Error('not an uncompressed point');
    const secret = diffieHellman({
      privateKey: recipient.privateKey,
      publicKey: createPublicKey({ key: jwk, format: 'jwk' }),
    });
    keys = Buffer.from(hkdfSync('sha256', Buffer.concat([ephemeral, secret]), Buffer.alloc(32), SENDER, 64));
  } catch {
    return fail('decryption', "The Google Pay token's ephemeral public key does not agree with this wallet's key");
  }
  const mac = createHmac('sha256', keys.subarray(32)).update(encrypted).digest();
  if (mac.length !== tag.length || !timingSafeEqual(mac, tag))
    fail('decryption', "The Google Pay token's message tag does not verify (encrypted for another key, or altered)");
  const decipher = createDecipheriv('aes-256-ctr', keys.subarray(0, 32), Buffer.alloc(16));
  const plain = Buffer.concat([decipher.update(encrypted), decipher.final()]);
  try {
    return parseJson(plain.toString('utf8'), 'The decrypted message');
  } finally {
    plain.fill(0);
  }
}

function cardOf(message: Record<string, any>, now: Date): WalletCard {
  if (!(Number(message.messageExpiration) > now.getTime()))
    fail('expired', 'The Google Pay token has expired (messageExpiration is in the past)');
  const details = message.paymentMethodDetails ?? {};
  if (message.paymentMethod !== 'CARD' || typeof details.pan !== 'string' || !/^\d{12,19}$/.test(details.pan))
    fail('malformed', 'The decrypted Google Pay token has no card');
  const month = Number(details.expirationMonth);
  const year = Number(details.expirationYear);
  if (!(month >= 1 && month <= 12) || !(year >= 2000 && year < 2100))
    fail('malformed', 'The decrypted Google Pay token has no valid expiration month and year');
  const expirationDate = `${String(month).padStart(2, '0')}/${String(year % 100).padStart(2, '0')}`;
  if (details.authMethod === 'PAN_ONLY')
    return { kind: 'fpan', number: details.pan, expirationDate, cryptogram: null, eci: null, amount: null };
  if (details.authMethod !== 'CRYPTOGRAM_3DS')
    fail('unsupported', `Google Pay authMethod ${String(details.authMethod)} is not supported`);
  if (typeof details.cryptogram !== 'string' || details.cryptogram === '')
    fail('malformed', 'The decrypted CRYPTOGRAM_3DS token has no cryptogram');
  return {
    kind: 'dpan',
    number: details.pan,
    expirationDate,
    cryptogram: details.cryptogram,
    eci: typeof details.eciIndicator === 'string' ? details.eciIndicator : null,
    amount: null,
  };
}

/** Verifies and decrypts a Google Pay token (object or its JSON text). Throws WalletTokenError; never logs. */
export function decryptGooglePayToken(
  input: string | Record<string, unknown>,
  recipient: GoogleRecipient,
  roots: readonly GoogleRootKey[],
  now: Date,
): WalletCard {
  const token = typeof input === 'string' ? parseJson(input, 'The Google Pay token') : input;
  if (token.protocolVersion !== PROTOCOL)
    fail(
      'unsupported',
      `Google Pay protocolVersion ${String(token.protocolVersion)} is not supported; only ECv2 tokens are decrypted`,
    );
  const key = intermediateKey(token, roots, now);
  if (typeof token.signedMessage !== 'string' || typeof token.signature !== 'string')
    fail('malformed', 'The Google Pay token has no signedMessage and signature');
  if (
    !verify(
      'sha256',
      lengthValue(SENDER, recipient.recipientId, PROTOCOL, token.signedMessage),
      key,
      Buffer.from(token.signature, 'base64'),
    )
  ) {
    fail(
      'signature',
      `The Google Pay message signature does not verify for recipient ${recipient.recipientId} (altered, or made for another recipient)`,
    );
  }
  const message = decryptMessage(parseJson(token.signedMessage, 'signedMessage'), recipient);
  const tokenId =
    typeof message.messageId === 'string' && message.messageId !== ''
      ? message.messageId
      : signedMessageDigest(token.signedMessage);
  return { ...cardOf(message, now), tokenId, usableUntil: new Date(Number(message.messageExpiration)) };
}

/** SHA-256 (hex) of the signed message: the id of a token whose message is not decrypted here (or has no messageId). */
export const signedMessageDigest = (signedMessage: string) =>
  createHash('sha256').update(signedMessage, 'utf8').digest('hex');

export interface GoogleTokenInput {
  /** The plaintext message (`paymentMethodDetails`, `messageExpiration`, ...). */
  message: Record<string, unknown>;
  recipientId: string;
  recipientPublicKey: KeyObject;
  intermediate: { privateKey: KeyObject; publicKey: KeyObject; expiration: Date };
  rootPrivateKey: KeyObject;
}

/** Makes an `ECv2` token (sandbox test tokens, tests): Google's side of the protocol. */
export function makeGooglePayToken(input: GoogleTokenInput): Record<string, unknown> {
  const signedKey = JSON.stringify({
    keyValue: input.intermediate.publicKey.export({ type: 'spki', format: 'der' }).toString('base64'),
    keyExpiration: String(input.intermediate.expiration.getTime()),
  });
  const keySignature = sign('sha256', lengthValue(SENDER, PROTOCOL, signedKey), input.rootPrivateKey).toString(
    'base64',
  );
  const ephemeral = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = ephemeral.publicKey.export({ format: 'jwk' });
  const point = Buffer.concat([Buffer.from([4]), Buffer.from(jwk.x!, 'base64url'), Buffer.from(jwk.y!, 'base64url')]);
  const secret = diffieHellman({ privateKey: ephemeral.privateKey, publicKey: input.recipientPublicKey });
  const keys = Buffer.from(hkdfSync('sha256', Buffer.concat([point, secret]), Buffer.alloc(32), SENDER, 64));
  const cipher = createCipheriv('aes-256-ctr', keys.subarray(0, 32), Buffer.alloc(16));
  const encrypted = Buffer.concat([cipher.update(JSON.stringify(input.message)), cipher.final()]);
  const tag = createHmac('sha256', keys.subarray(32)).update(encrypted).digest();
  const signedMessage = JSON.stringify({
    encryptedMessage: encrypted.toString('base64'),
    ephemeralPublicKey: point.toString('base64'),
    tag: tag.toString('base64'),
  });
  const signature = sign(
    'sha256',
    lengthValue(SENDER, input.recipientId, PROTOCOL, signedMessage),
    input.intermediate.privateKey,
  ).toString('base64');
  return {
    protocolVersion: PROTOCOL,
    signature,
    intermediateSigningKey: { signedKey, signatures: [keySignature] },
    signedMessage,
  };
}
