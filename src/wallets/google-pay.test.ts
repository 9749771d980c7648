import { createCipheriv, createHmac, diffieHellman, generateKeyPairSync, hkdfSync, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decryptGooglePayToken, makeGooglePayToken, signedMessageDigest, type GoogleRootKey } from './google-pay.ts';
import { walletRefusal as refusal } from '../../test/helpers/wallet-refusal.ts';

const pair = () => generateKeyPairSync('ec', { namedCurve: 'P-256' });
const root = pair();
const intermediate = pair();
const processing = pair();
const RECIPIENT = 'merchant:12345678901234567890';
const now = new Date();
const roots: GoogleRootKey[] = [
  { keyValue: root.publicKey.export({ type: 'spki', format: 'der' }).toString('base64'), protocolVersion: 'ECv2' },
];
const recipient = { privateKey: processing.privateKey, recipientId: RECIPIENT };

const details = (extra: Record<string, unknown> = {}) => ({
  pan: '4111111111111111',
  expirationMonth: 12,
  expirationYear: 2030,
  authMethod: 'CRYPTOGRAM_3DS',
  cryptogram: 'AAAAAA+Google+Cryptogram=',
  eciIndicator: '05',
  ...extra,
});
const message = (extra: Record<string, unknown> = {}) => ({
  messageExpiration: String(now.getTime() + 3600_000),
  messageId: 'm-1',
  paymentMethod: 'CARD',
  paymentMethodDetails: details(),
  ...extra,
});

function token(
  overrides: {
    message?: Record<string, unknown>;
    recipientId?: string;
    rootKey?: typeof root;
    recipientKey?: typeof processing;
    keyExpiration?: Date;
  } = {},
) {
  return makeGooglePayToken({
    message: overrides.message ?? message(),
    recipientId: overrides.recipientId ?? RECIPIENT,
    recipientPublicKey: (overrides.recipientKey ?? processing).publicKey,
    intermediate: { ...intermediate, expiration: overrides.keyExpiration ?? new Date(now.getTime() + 86400_000) },
    rootPrivateKey: (overrides.rootKey ?? root).privateKey,
  }) as {
    signedMessage: string;
    signature: string;
    intermediateSigningKey: { signedKey: string; signatures: string[] };
  };
}

/** `t` carrying `signedMessage`, signed by the intermediate key as Google signs it (length-prefixed parts). */
function resigned(t: ReturnType<typeof token>, signedMessage: string) {
  const lv = (...parts: string[]) =>
    Buffer.concat(parts.flatMap((p) => [Buffer.from(new Uint32Array([Buffer.byteLength(p)]).buffer), Buffer.from(p)]));
  return {
    ...t,
    signedMessage,
    signature: sign('sha256', lv('Google', RECIPIENT, 'ECv2', signedMessage), intermediate.privateKey).toString(
      'base64',
    ),
  };
}

describe('happy', () => {
  it('verifies and decrypts an ECv2 CRYPTOGRAM_3DS token (object or JSON text)', () => {
    const card = {
      kind: 'dpan',
      number: '4111111111111111',
      expirationDate: '12/30',
      cryptogram: 'AAAAAA+Google+Cryptogram=',
      eci: '05',
      amount: null,
      tokenId: 'm-1',
      usableUntil: new Date(now.getTime() + 3600_000),
    };
    expect(decryptGooglePayToken(token(), recipient, roots, now)).toEqual(card);
    expect(decryptGooglePayToken(JSON.stringify(token()), recipient, roots, now)).toEqual(card);
  });

  it('a PAN_ONLY token yields the card number without a cryptogram', () => {
    const t = token({
      message: message({
        paymentMethodDetails: {
          pan: '5555555555554444',
          expirationMonth: 3,
          expirationYear: 2031,
          authMethod: 'PAN_ONLY',
        },
      }),
    });
    expect(decryptGooglePayToken(t, recipient, roots, now)).toMatchObject({
      kind: 'fpan',
      number: '5555555555554444',
      expirationDate: '03/31',
      cryptogram: null,
      eci: null,
      amount: null,
    });
  });

  it('names a token without messageId by the SHA-256 of its signed message', () => {
    const { messageId: _, ...withoutId } = message();
    const t = token({ message: withoutId });
    expect(decryptGooglePayToken(t, recipient, roots, now).tokenId).toBe(signedMessageDigest(t.signedMessage));
    expect(signedMessageDigest(t.signedMessage)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('decrypts a token whose message was sealed here step by step from the published algorithm', () => {
    // Independent of makeGooglePayToken's sealing: HKDF(ephemeral ‖ secret), AES-256-CTR, HMAC tag.
    const ephemeral = pair();
    const jwk = ephemeral.publicKey.export({ format: 'jwk' });
    const point = Buffer.concat([Buffer.from([4]), Buffer.from(jwk.x!, 'base64url'), Buffer.from(jwk.y!, 'base64url')]);
    const keys = Buffer.from(
      hkdfSync(
        'sha256',
        Buffer.concat([point, diffieHellman({ privateKey: ephemeral.privateKey, publicKey: processing.publicKey })]),
        Buffer.alloc(32),
        'Google',
        64,
      ),
    );
    const cipher = createCipheriv('aes-256-ctr', keys.subarray(0, 32), Buffer.alloc(16));
    const encrypted = Buffer.concat([cipher.update(JSON.stringify(message())), cipher.final()]);
    const signedMessage = JSON.stringify({
      encryptedMessage: encrypted.toString('base64'),
      ephemeralPublicKey: point.toString('base64'),
      tag: createHmac('sha256', keys.subarray(32)).update(encrypted).digest('base64'),
    });
    expect(decryptGooglePayToken(resigned(token(), signedMessage), recipient, roots, now).number).toBe(
      '4111111111111111',
    );
  });
});

describe('errors', () => {
  it('refuses an intermediate key signed by an untrusted root', () => {
    expect(refusal(() => decryptGooglePayToken(token({ rootKey: pair() }), recipient, roots, now))).toMatchObject({
      reason: 'signature',
      message: expect.stringContaining('trusted Google root'),
    });
  });

  it('refuses an expired intermediate signing key and an expired message', () => {
    expect(
      refusal(() =>
        decryptGooglePayToken(token({ keyExpiration: new Date(now.getTime() - 1000) }), recipient, roots, now),
      ).reason,
    ).toBe('expired');
    expect(
      refusal(() =>
        decryptGooglePayToken(
          token({ message: message({ messageExpiration: String(now.getTime() - 1000) }) }),
          recipient,
          roots,
          now,
        ),
      ),
    ).toMatchObject({ reason: 'expired', message: expect.stringContaining('messageExpiration') });
  });

  it('refuses a token made for another recipient', () => {
    expect(
      refusal(() => decryptGooglePayToken(token({ recipientId: 'merchant:999' }), recipient, roots, now)).reason,
    ).toBe('signature');
  });

  it('refuses tampered ciphertext (signature) and a tampered tag re-signed (MAC)', () => {
    const t = token();
    const signed = JSON.parse(t.signedMessage);
    // One bit flipped, so the bytes always differ (replacing a byte left them unchanged when it already held that value).
    const flipped = (base64: string) => {
      const bytes = Buffer.from(base64, 'base64');
      bytes[0] = bytes[0]! ^ 0x01;
      return bytes.toString('base64');
    };
    const tamperedCiphertext = JSON.stringify({ ...signed, encryptedMessage: flipped(signed.encryptedMessage) });
    expect(
      refusal(() => decryptGooglePayToken({ ...t, signedMessage: tamperedCiphertext }, recipient, roots, now)).reason,
    ).toBe('signature');
    // Signed again by the intermediate key, a tampered tag (or ciphertext) passes the signature and fails the MAC.
    const tamperedTag = JSON.stringify({ ...signed, tag: flipped(signed.tag) });
    for (const tampered of [tamperedTag, tamperedCiphertext]) {
      expect(refusal(() => decryptGooglePayToken(resigned(t, tampered), recipient, roots, now))).toMatchObject({
        reason: 'decryption',
        message: expect.stringContaining('tag does not verify'),
      });
    }
  });

  it('refuses a token encrypted for another key', () => {
    expect(refusal(() => decryptGooglePayToken(token({ recipientKey: pair() }), recipient, roots, now))).toMatchObject({
      reason: 'decryption',
      message: expect.stringContaining('tag does not verify'),
    });
  });

  it('refuses other protocol versions and malformed tokens', () => {
    expect(
      refusal(() => decryptGooglePayToken({ ...token(), protocolVersion: 'ECv1' }, recipient, roots, now)).reason,
    ).toBe('unsupported');
    expect(refusal(() => decryptGooglePayToken('{not json', recipient, roots, now)).reason).toBe('malformed');
    expect(refusal(() => decryptGooglePayToken({ protocolVersion: 'ECv2' }, recipient, roots, now)).message).toContain(
      'intermediateSigningKey',
    );
  });

  it('ignores root keys of other protocol versions and expired root keys', () => {
    expect(
      refusal(() => decryptGooglePayToken(token(), recipient, [{ ...roots[0]!, protocolVersion: 'ECv1' }], now)).reason,
    ).toBe('signature');
    expect(
      refusal(() =>
        decryptGooglePayToken(token(), recipient, [{ ...roots[0]!, keyExpiration: String(now.getTime() - 1) }], now),
      ).reason,
    ).toBe('signature');
  });
});
