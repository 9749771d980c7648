import { createPublicKey, generateKeyPairSync, X509Certificate, type KeyObject } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { APPLE_INTERMEDIATE_MARKER, APPLE_LEAF_MARKER, decryptApplePayToken, makeApplePayToken } from './apple-pay.ts';
import { APPLE_ROOT_CA_G3 } from './apple-root.ts';
import { walletRefusal as refusal } from '../../test/helpers/wallet-refusal.ts';
import { issueCertificate } from './x509.ts';

/** A test chain of our own: root → intermediate (Apple's marker) → leaf (Apple's marker). */
function chain(options: { leafMarker?: string; notAfter?: Date } = {}) {
  const key = () => generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
  const [rootKey, intermediateKey, leafKey] = [key(), key(), key()];
  const validity = { notBefore: new Date('2020-01-01'), notAfter: options.notAfter ?? new Date('2040-01-01') };
  const root = issueCertificate({ ...validity, subject: 'Test Root', issuer: 'Test Root', serial: 1, publicKey: createPublicKey(rootKey), issuerKey: rootKey, ca: true });
  const intermediate = issueCertificate({ ...validity, subject: 'Test Intermediate', issuer: 'Test Root', serial: 2, publicKey: createPublicKey(intermediateKey), issuerKey: rootKey, ca: true, markers: [APPLE_INTERMEDIATE_MARKER] });
  const leaf = issueCertificate({ ...validity, subject: 'Test Leaf', issuer: 'Test Intermediate', serial: 3, publicKey: createPublicKey(leafKey), issuerKey: intermediateKey, ca: false, markers: [options.leafMarker ?? APPLE_LEAF_MARKER] });
  return { root: new X509Certificate(root), signer: { leaf, intermediate, key: leafKey } };
}

const PAYMENT = {
  applicationPrimaryAccountNumber: '4895370012003478',
  applicationExpirationDate: '301231',
  currencyCode: '840',
  transactionAmount: 1000,
  deviceManufacturerIdentifier: '040010030273',
  paymentDataType: '3DSecure',
  paymentData: { onlinePaymentCryptogram: 'AgAAAAAAAIR8CQrXcIhbQAAAAAA=', eciIndicator: '07' },
};
const MERCHANT = 'merchant.com.example.shop';
const processing = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const trusted = chain();
const now = new Date();
const trust = { roots: [trusted.root], now, maxAgeSeconds: 300 };
const recipient = { privateKey: processing.privateKey, merchantIdentifier: MERCHANT };

function token(overrides: { signer?: ReturnType<typeof chain>['signer']; signingTime?: Date; recipientKey?: KeyObject; merchantIdentifier?: string; payment?: Record<string, unknown> } = {}) {
  return makeApplePayToken({
    payment: overrides.payment ?? PAYMENT,
    recipientPublicKey: overrides.recipientKey ?? processing.publicKey,
    merchantIdentifier: overrides.merchantIdentifier ?? MERCHANT,
    signer: overrides.signer ?? trusted.signer,
    signingTime: overrides.signingTime ?? now,
    network: 'Visa',
  }) as { paymentData: { data: string; signature: string; header: Record<string, string> } };
}

describe('happy', () => {
  it('verifies and decrypts an EC_v1 token: device account number, expiry, cryptogram, ECI, approved amount, id and life', () => {
    const t = token();
    expect(decryptApplePayToken(t, recipient, trust)).toEqual({
      kind: 'dpan', number: '4895370012003478', expirationDate: '12/30', cryptogram: 'AgAAAAAAAIR8CQrXcIhbQAAAAAA=', eci: '07', amount: 1000, currencyCode: '840',
      tokenId: t.paymentData.header.transactionId, usableUntil: new Date(Math.floor(now.getTime() / 1000) * 1000 + 300_000),
    });
  });

  it('names the token by its transaction id in lowercase: the letter case is not signed, so it must not make a new token', () => {
    const t = token();
    const id = t.paymentData.header.transactionId!;
    t.paymentData.header.transactionId = id.toUpperCase();
    expect(decryptApplePayToken(t, recipient, trust).tokenId).toBe(id.toLowerCase());
  });

  it('accepts paymentData alone (without paymentMethod and transactionIdentifier)', () => {
    expect(decryptApplePayToken(token().paymentData as never, recipient, trust).number).toBe('4895370012003478');
  });

  it('the embedded Apple Root CA - G3 is the published one', () => {
    expect(new X509Certificate(APPLE_ROOT_CA_G3).fingerprint256).toBe('63:34:3A:BF:B8:9A:6A:03:EB:B5:7E:9B:3F:5F:A7:BE:7C:4F:5C:75:6F:30:17:B3:A8:C4:88:C3:65:3E:91:79');
  });
});

describe('errors', () => {
  it('refuses a token signed under another root (bad signature chain)', () => {
    expect(refusal(() => decryptApplePayToken(token({ signer: chain().signer }), recipient, trust))).toMatchObject({ reason: 'signature', message: expect.stringContaining('trusted root') });
  });

  it('refuses a chain whose leaf lacks the signing extension', () => {
    expect(refusal(() => decryptApplePayToken(token({ signer: chain({ leafMarker: '1.2.3.4' }).signer }), recipient, { ...trust, roots: [] })).reason).toBe('signature');
  });

  it('refuses tampered ciphertext (the signature covers the data)', () => {
    const t = token();
    const data = Buffer.from(t.paymentData.data, 'base64');
    data[5]! ^= 1;
    t.paymentData.data = data.toString('base64');
    expect(refusal(() => decryptApplePayToken(t, recipient, trust))).toMatchObject({ reason: 'signature', message: expect.stringContaining('tampered') });
  });

  it('refuses an altered transaction id', () => {
    const t = token();
    t.paymentData.header.transactionId = 'ab' + t.paymentData.header.transactionId!.slice(2);
    expect(refusal(() => decryptApplePayToken(t, recipient, trust)).reason).toBe('signature');
  });

  it('refuses a token signed too long ago, and one signed in the future', () => {
    expect(refusal(() => decryptApplePayToken(token({ signingTime: new Date(now.getTime() - 301_000) }), recipient, trust))).toMatchObject({ reason: 'expired', message: expect.stringContaining('older than 300 seconds') });
    expect(refusal(() => decryptApplePayToken(token({ signingTime: new Date(now.getTime() + 3600_000) }), recipient, trust)).reason).toBe('expired');
  });

  it('refuses a token encrypted for another processing key', () => {
    const other = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    expect(refusal(() => decryptApplePayToken(token({ recipientKey: other.publicKey }), recipient, trust)).reason).toBe('wrong_key');
  });

  it('refuses a token whose key derivation used another merchant identifier', () => {
    expect(refusal(() => decryptApplePayToken(token({ merchantIdentifier: 'merchant.other' }), recipient, trust)).reason).toBe('decryption');
  });

  it('refuses an expired certificate chain', () => {
    const old = chain({ notAfter: new Date('2021-01-01') });
    expect(refusal(() => decryptApplePayToken(token({ signer: old.signer }), recipient, { ...trust, roots: [old.root] })).message).toContain('not valid at this time');
  });

  it('refuses RSA_v1 and malformed tokens with a message naming the field', () => {
    expect(refusal(() => decryptApplePayToken({ paymentData: { version: 'RSA_v1' } }, recipient, trust)).reason).toBe('unsupported');
    expect(refusal(() => decryptApplePayToken({ paymentData: { version: 'EC_v1', header: { transactionId: 'zz' } } }, recipient, trust)).message).toContain('transactionId');
    // An odd digit would be dropped by the hex decoding of the signed content: the same signature under a new id.
    const odd = token();
    odd.paymentData.header.transactionId += 'a';
    expect(refusal(() => decryptApplePayToken(odd, recipient, trust))).toMatchObject({ reason: 'malformed', message: expect.stringContaining('transactionId') });
    const t = token();
    t.paymentData.signature = 'bm90IGEgc2lnbmF0dXJl';
    expect(refusal(() => decryptApplePayToken(t, recipient, trust)).message).toContain('PKCS#7');
  });

  it('refuses decrypted data that is not a 3DSecure token', () => {
    expect(refusal(() => decryptApplePayToken(token({ payment: { ...PAYMENT, paymentDataType: 'EMV' } }), recipient, trust)).reason).toBe('unsupported');
  });
});
